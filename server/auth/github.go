package auth

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// GitHubAuthenticator accepts GitHub tokens: GitHub's API says whose token it
// is, and what that user may do on the repo a slug names, which becomes a read
// or write grant on that one repo (a public repo's pull, which every user has,
// only when the config allows it). The subject, github:<login>, is bound to
// the GitHub user id of the first user that signed in as it (bindings), and
// refused to any other. GitHub's good answers are cached for the TTL under a
// hash of the token (Modes caches a refusal of the token; a repo GitHub
// grants nothing on is asked again).
type GitHubAuthenticator struct {
	cfg      GitHubConfig
	up       *upstream
	now      func() time.Time
	bindings store.IdentityBindings
	users    *verdictCache[githubUser]
	levels   *verdictCache[store.Level]
	flight   singleflight.Group
}

func newGitHub(cfg GitHubConfig, up *upstream, now func() time.Time, bindings store.IdentityBindings) *GitHubAuthenticator {
	return &GitHubAuthenticator{
		cfg: cfg, up: up, now: now, bindings: bindings,
		users: newVerdictCache[githubUser](maxCached), levels: newVerdictCache[store.Level](maxCached),
	}
}

// githubUser is the part of GitHub's answer about a token's user teammemd
// reads: the login, which its user can change and another user take after
// it, and the id, which is the user's for good.
type githubUser struct {
	Login string `json:"login"`
	ID    int64  `json:"id"`
}

// subject is the user's subject: github: and the login.
func (u githubUser) subject() string { return "github:" + u.Login }

// accountID is the user's id as text, as bindings keep it.
func (u githubUser) accountID() string { return strconv.FormatInt(u.ID, 10) }

// authenticate returns the caller, with a grant on repo at the level GitHub
// gives the token's user there ("" for none).
func (a *GitHubAuthenticator) authenticate(ctx context.Context, c credential, repo string) (Principal, error) {
	user, err := a.user(ctx, c)
	if err != nil {
		return Principal{}, err
	}
	p := Principal{Subject: user.subject(), Mode: ModeGitHub, AccountID: user.accountID()}
	owner, name, ok := a.githubRepo(repo)
	if !ok {
		return p, nil
	}
	level, err := a.level(ctx, c, owner, name)
	if err != nil {
		return Principal{}, err
	}
	if level != "" {
		p.Grants = []store.Grant{{Pattern: repo, Level: level}}
	}
	return p, nil
}

// githubRepo maps a slug of this GitHub's repos to its owner and name.
func (a *GitHubAuthenticator) githubRepo(slug string) (owner, name string, ok bool) {
	if api.ValidateSlug(slug) != nil {
		return "", "", false
	}
	seg := strings.Split(slug, "/")
	switch {
	case a.cfg.RepoHost == GitHubHost && len(seg) == 2:
		return seg[0], seg[1], true
	case a.cfg.RepoHost != GitHubHost && len(seg) == 3 && seg[0] == a.cfg.RepoHost:
		return seg[1], seg[2], true
	}
	return "", "", false
}

// user returns the token's user, once its subject is bound to the user's
// id: a user whose login is bound to another user's id is refused with a
// *BindingError, and asked about again at its next request.
func (a *GitHubAuthenticator) user(ctx context.Context, c credential) (githubUser, error) {
	if user, ok := a.users.get(c.hash, a.now()); ok {
		return user, nil
	}
	v, err, _ := a.flight.Do("user\x00"+c.hash, func() (any, error) {
		ctx := context.WithoutCancel(ctx)
		var user githubUser
		ans, err := a.up.getJSON(ctx, ModeGitHub, a.endpoint("user"), c.secret, githubHeaders, &user)
		if err := a.judge(ans, err); err != nil {
			return githubUser{}, err
		}
		if user.Login == "" || user.ID <= 0 {
			return githubUser{}, unavailable(ModeGitHub, "GitHub answered %d without a login and user id", ans.status)
		}
		return user, a.bind(ctx, user)
	})
	if err != nil {
		return githubUser{}, err
	}
	now := a.now()
	a.users.put(c.hash, v.(githubUser), now.Add(a.cfg.CacheTTL), now)
	return v.(githubUser), nil
}

// level returns what the token's user may do on owner/name: write, read or
// "" for nothing.
func (a *GitHubAuthenticator) level(ctx context.Context, c credential, owner, name string) (store.Level, error) {
	ck := c.hash + "\x00" + owner + "/" + name
	if level, ok := a.levels.get(ck, a.now()); ok {
		return level, nil
	}
	v, err, _ := a.flight.Do("repo\x00"+ck, func() (any, error) {
		var repo githubRepo
		u := a.endpoint("repos", owner, name)
		ans, err := a.up.getJSON(context.WithoutCancel(ctx), ModeGitHub, u, c.secret, githubHeaders, &repo)
		if ans.status == http.StatusNotFound || (ans.status == http.StatusForbidden && !rateLimited(ans)) {
			return store.Level(""), nil // GitHub hides a repo the user cannot see
		}
		if err := a.judge(ans, err); err != nil {
			return store.Level(""), err
		}
		return a.grantOn(repo), nil
	})
	if err != nil {
		return "", err
	}
	level := v.(store.Level)
	if level != "" {
		now := a.now()
		a.levels.put(ck, level, now.Add(a.cfg.CacheTTL), now)
	}
	return level, nil
}

// githubRepo is the part of GitHub's answer about a repo teammemd reads.
type githubRepo struct {
	Private     bool   `json:"private"`
	Visibility  string `json:"visibility"`
	Permissions struct {
		Admin, Maintain, Push, Pull bool
	} `json:"permissions"`
}

// grantOn is the level GitHub's answer about a repo grants: write for push
// (or more), read for pull. GitHub gives every user pull on a public repo,
// so there pull grants read only when the config says public repos are
// readable.
func (a *GitHubAuthenticator) grantOn(repo githubRepo) store.Level {
	perm := repo.Permissions
	public := repo.Visibility == "public" || (repo.Visibility == "" && !repo.Private)
	switch {
	case perm.Admin || perm.Maintain || perm.Push:
		return store.LevelWrite
	case perm.Pull && (!public || a.cfg.ReadPublicRepos):
		return store.LevelRead
	}
	return ""
}

// githubHeaders ask for the REST API's current JSON.
var githubHeaders = map[string]string{"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}

// judge turns GitHub's answer into an error for anything but 200.
func (a *GitHubAuthenticator) judge(ans upstreamAnswer, err error) error {
	switch {
	case err != nil:
		return err
	case ans.status == http.StatusOK:
		return nil
	case ans.status == http.StatusUnauthorized:
		return reject(ModeGitHub, ReasonRejected,
			"GitHub does not accept this token (expired or revoked): use a new one, for example TEAMMEMD_TOKEN=$(gh auth token)")
	case rateLimited(ans) || transient(ans.status):
		return unavailable(ModeGitHub, "GitHub answered %d", ans.status)
	}
	return reject(ModeGitHub, ReasonRejected, "GitHub refused this token: check its scopes and your organization's SSO authorization")
}

// rateLimited reports a GitHub rate-limit answer.
func rateLimited(ans upstreamAnswer) bool {
	return ans.status == http.StatusTooManyRequests ||
		(ans.status == http.StatusForbidden && ans.header.Get("X-RateLimit-Remaining") == "0")
}

// endpoint joins path segments, each escaped, to the API URL.
func (a *GitHubAuthenticator) endpoint(segments ...string) string {
	for i, s := range segments {
		segments[i] = url.PathEscape(s)
	}
	return strings.TrimRight(a.cfg.APIURL, "/") + "/" + strings.Join(segments, "/")
}
