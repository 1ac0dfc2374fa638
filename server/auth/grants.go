package auth

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/teammemd/teammemd/server/store"
)

// Kinds of grant subject: what part of an identity a grant matches.
const (
	SubjectSub     = "sub"     // the OIDC subject claim, exactly
	SubjectEmail   = "email"   // an email an OIDC provider or claude.ai vouches for; "*" wildcards before the @
	SubjectGroup   = "group"   // a group in the OIDC groups claim, exactly
	SubjectAccount = "account" // a claude.ai account uuid, exactly
	SubjectOrg     = "org"     // a claude.ai organization uuid, exactly
)

// subjectModes says which modes can vouch for each kind of subject.
var subjectModes = map[string][]string{
	SubjectSub:     {ModeOIDC},
	SubjectEmail:   {ModeOIDC, ModeClaude},
	SubjectGroup:   {ModeOIDC},
	SubjectAccount: {ModeClaude},
	SubjectOrg:     {ModeClaude},
}

// GrantRule gives the identities that match Subject Level on Repos. It is
// one [[server.auth.grants]] entry.
type GrantRule struct {
	// Subject is "kind:value": "sub:<id>", "email:*@acme.com",
	// "group:eng", "account:<uuid>" or "org:<uuid>".
	Subject string `toml:"subject"`
	// Repos are repo slug patterns, as in a token's grants.
	Repos []string `toml:"repos"`
	// Level is "read", "write" or "review".
	Level store.Level `toml:"level"`
}

// Identity is who an OIDC provider or claude.ai says a caller is: what the
// grant rules match. The web view keeps it with a session, to work the
// session's grants out again under the rules in force.
type Identity struct {
	Mode   string   `json:"mode"`
	Sub    string   `json:"sub,omitempty"`   // OIDC subject
	Email  string   `json:"email,omitempty"` // empty unless the issuer vouches for it
	Groups []string `json:"groups,omitempty"`
	// Account and Org are the claude.ai account and organization uuids.
	Account string `json:"account,omitempty"`
	Org     string `json:"org,omitempty"`
}

// parseSubject splits "kind:value".
func parseSubject(s string) (kind, value string, err error) {
	kind, value, ok := strings.Cut(s, ":")
	if !ok || value == "" {
		return "", "", fmt.Errorf("subject %q must be kind:value, e.g. group:eng or email:*@acme.com", s)
	}
	if _, known := subjectModes[kind]; !known {
		return "", "", fmt.Errorf("subject %q: kind must be sub, email, group, account or org", s)
	}
	return kind, value, nil
}

// validateGrants checks every grant rule, and that each mode that needs
// rules has one that can match its identities. Rules for modes that are off
// are kept, unused.
func (c Config) validateGrants() error {
	matched := map[string]bool{}
	for i, g := range c.Grants {
		kind, err := g.validate()
		if err != nil {
			return fmt.Errorf("auth.grants[%d]: %w", i, err)
		}
		for _, m := range subjectModes[kind] {
			matched[m] = matched[m] || c.ModeOn(m)
		}
	}
	for _, m := range []string{ModeOIDC, ModeClaude} {
		if c.ModeOn(m) && !matched[m] {
			return fmt.Errorf("auth: %s is on but no [[server.auth.grants]] entry can match its identities, so it would admit no one", m)
		}
	}
	return nil
}

// ModeOn reports whether c accepts the credentials of mode.
func (c Config) ModeOn(mode string) bool { return slices.Contains(c.ModeNames(), mode) }

// GrantsFor returns the grants c's rules give id, as the OIDC and Claude
// modes work them out for each credential.
func (c Config) GrantsFor(id Identity) []store.Grant { return grantsFor(c.Grants, id) }

func (g GrantRule) validate() (string, error) {
	kind, value, err := parseSubject(g.Subject)
	if err != nil {
		return "", err
	}
	if kind == SubjectEmail {
		if err := validateEmailPattern(value); err != nil {
			return "", fmt.Errorf("subject %q: %w", g.Subject, err)
		}
	}
	if !ValidLevel(g.Level) {
		return "", fmt.Errorf("level %q must be read, write or review", g.Level)
	}
	if len(g.Repos) == 0 {
		return "", errors.New("repos is empty")
	}
	for _, p := range g.Repos {
		if err := ValidatePattern(p); err != nil {
			return "", err
		}
	}
	return kind, nil
}

// grantsFor returns the grants of every rule that matches id.
func grantsFor(rules []GrantRule, id Identity) []store.Grant {
	var grants []store.Grant
	for _, r := range rules {
		if !r.matches(id) {
			continue
		}
		for _, p := range r.Repos {
			grants = append(grants, store.Grant{Pattern: p, Level: r.Level})
		}
	}
	return grants
}

func (g GrantRule) matches(id Identity) bool {
	kind, value, err := parseSubject(g.Subject)
	if err != nil || !slices.Contains(subjectModes[kind], id.Mode) {
		return false
	}
	switch kind {
	case SubjectSub:
		return id.Sub != "" && id.Sub == value
	case SubjectEmail:
		return matchEmail(value, id.Email)
	case SubjectGroup:
		return slices.Contains(id.Groups, value)
	case SubjectAccount:
		return id.Account != "" && id.Account == value
	case SubjectOrg:
		return id.Org != "" && id.Org == value
	}
	return false
}
