package authtest

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// GitHub is a fake of GitHub's REST API: GET /user names a token's user and
// GET /repos/{owner}/{repo} answers that user's permissions, or 404 for a
// repo the user cannot see, as GitHub does; every user sees a public repo,
// with pull.
type GitHub struct {
	// URL is the API base to configure as api_url.
	URL string
	// Calls counts the requests answered.
	Calls atomic.Int64

	mu     sync.Mutex
	users  map[string]githubUser        // token -> its user
	ids    map[string]int64             // login -> the user id AddUser gives it
	perms  map[string]map[string]string // login -> "owner/repo" -> "read", "write" or "admin"
	public map[string]bool              // "owner/repo" -> public
}

// githubUser is a user as GET /user names it.
type githubUser struct {
	login string
	id    int64
}

// NewGitHub starts the fake.
func NewGitHub(t testing.TB) *GitHub {
	g := &GitHub{users: map[string]githubUser{}, ids: map[string]int64{}, perms: map[string]map[string]string{}, public: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /user", g.user)
	mux.HandleFunc("GET /repos/{owner}/{repo}", g.repo)
	g.URL = serve(t, mux).URL
	return g
}

// AddUser makes token a valid token of login, a user whose id is the
// same for every token of login and another for each login.
func (g *GitHub) AddUser(token, login string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	id, ok := g.ids[login]
	if !ok {
		id = int64(1000 + len(g.ids))
		g.ids[login] = id
	}
	g.users[token] = githubUser{login: login, id: id}
}

// AddUserID makes token a valid token of login as the user with id, as
// GitHub names the user that took a login another user renamed away from.
func (g *GitHub) AddUserID(token, login string, id int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.users[token] = githubUser{login: login, id: id}
}

// RevokeToken makes token invalid.
func (g *GitHub) RevokeToken(token string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.users, token)
}

// Grant gives login perm ("read", "write" or "admin") on owner/repo; ""
// takes it away.
func (g *GitHub) Grant(login, repo, perm string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.perms[login] == nil {
		g.perms[login] = map[string]string{}
	}
	g.perms[login][strings.ToLower(repo)] = perm
}

// SetPublic makes owner/repo a public repo: as on GitHub, every user may
// see it and gets pull on it.
func (g *GitHub) SetPublic(repo string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.public[strings.ToLower(repo)] = true
}

func (g *GitHub) who(r *http.Request) (githubUser, bool) {
	g.Calls.Add(1)
	g.mu.Lock()
	defer g.mu.Unlock()
	user, ok := g.users[bearer(r)]
	return user, ok
}

func badCredentials(w http.ResponseWriter) {
	writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
}

func (g *GitHub) user(w http.ResponseWriter, r *http.Request) {
	user, ok := g.who(r)
	if !ok {
		badCredentials(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"login": user.login, "id": user.id, "type": "User"})
}

func (g *GitHub) repo(w http.ResponseWriter, r *http.Request) {
	user, ok := g.who(r)
	if !ok {
		badCredentials(w)
		return
	}
	login := user.login
	full := r.PathValue("owner") + "/" + r.PathValue("repo")
	g.mu.Lock()
	perm := g.perms[login][strings.ToLower(full)]
	public := g.public[strings.ToLower(full)]
	g.mu.Unlock()
	if perm == "" && !public {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	write := perm == "write" || perm == "admin"
	visibility := map[bool]string{true: "public", false: "private"}[public]
	writeJSON(w, http.StatusOK, map[string]any{
		"full_name": full, "private": !public, "visibility": visibility,
		"permissions": map[string]bool{"admin": perm == "admin", "maintain": perm == "admin", "push": write, "triage": write, "pull": true},
	})
}
