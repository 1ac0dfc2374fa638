package auth

import (
	"cmp"
	"context"
	"net/http"
	"time"

	"golang.org/x/sync/singleflight"
)

// ClaudeAuthenticator accepts the claude.ai OAuth access token a stock Claude
// Code sends: it asks the profile endpoint whose account the token is, and
// grants what the rules give that account's email, uuid or organization. A
// good verdict is cached for the TTL under a hash of the token (Modes caches
// a refusal). The token is never stored or logged.
type ClaudeAuthenticator struct {
	cfg    ClaudeConfig
	rules  []GrantRule
	up     *upstream
	now    func() time.Time
	cache  *verdictCache[Principal]
	flight singleflight.Group
}

// profile is the part of the profile endpoint's answer teammemd reads.
type profile struct {
	Account struct {
		UUID  string `json:"uuid"`
		Email string `json:"email"`
	} `json:"account"`
	Organization struct {
		UUID string `json:"uuid"`
	} `json:"organization"`
}

func newClaude(cfg ClaudeConfig, rules []GrantRule, up *upstream, now func() time.Time) *ClaudeAuthenticator {
	return &ClaudeAuthenticator{cfg: cfg, rules: rules, up: up, now: now, cache: newVerdictCache[Principal](maxCached)}
}

// authenticate returns the principal of a claude.ai access token.
func (a *ClaudeAuthenticator) authenticate(ctx context.Context, c credential) (Principal, error) {
	if p, ok := a.cache.get(c.hash, a.now()); ok {
		return p.clone(), nil
	}
	v, err, _ := a.flight.Do(c.hash, func() (any, error) {
		return a.check(context.WithoutCancel(ctx), c.secret)
	})
	if err != nil {
		return Principal{}, err
	}
	p := v.(Principal)
	now := a.now()
	a.cache.put(c.hash, p.clone(), now.Add(a.cfg.CacheTTL), now)
	return p.clone(), nil
}

// check asks the profile endpoint about bearer.
func (a *ClaudeAuthenticator) check(ctx context.Context, bearer string) (Principal, error) {
	var prof profile
	ans, err := a.up.getJSON(ctx, ModeClaude, a.cfg.ProfileURL, bearer, map[string]string{"anthropic-beta": a.cfg.Beta}, &prof)
	switch {
	case err != nil:
		return Principal{}, err
	case ans.status == http.StatusUnauthorized || ans.status == http.StatusForbidden:
		return Principal{}, reject(ModeClaude, ReasonRejected,
			"claude.ai does not accept this Claude account token (expired or signed out): sign in again in Claude Code with /login")
	case transient(ans.status) || ans.status != http.StatusOK:
		return Principal{}, unavailable(ModeClaude, "profile endpoint answered %d", ans.status)
	case prof.Account.UUID == "":
		return Principal{}, unavailable(ModeClaude, "profile endpoint named no account")
	}
	id := Identity{Mode: ModeClaude, Email: prof.Account.Email, Account: prof.Account.UUID, Org: prof.Organization.UUID}
	return Principal{
		Subject:  "claude:" + cmp.Or(id.Email, id.Account),
		Mode:     ModeClaude,
		Grants:   grantsFor(a.rules, id),
		Identity: &id,
	}, nil
}
