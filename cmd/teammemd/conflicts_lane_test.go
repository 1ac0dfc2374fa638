package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
	"github.com/teammemd/teammemd/sync/personal"
	"github.com/teammemd/teammemd/sync/personal/personaltest"
)

// laneMachine is one of the user's machines syncing one personal lane:
// its directory and state directory, with the lane's engine over them,
// as the daemon runs it.
type laneMachine struct {
	dir string
	eng *memsync.Engine
	tr  *personal.Transport
}

func openLaneMachine(t *testing.T, srv *servertest.Server, keys personal.Keys, project, dir, state string) *laneMachine {
	t.Helper()
	c, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}))
	if err != nil {
		t.Fatal(err)
	}
	files := memsync.ProjectMemory
	if project == personal.UserProject {
		files = memsync.UserFiles
	}
	cfg := personal.LaneConfig{Dir: dir, Project: project, Files: files, Server: srv.URL, StateDir: state}
	eng, tr, err := personal.OpenLane(cfg, keys, c, memsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &laneMachine{dir: dir, eng: eng, tr: tr}
}

func (m *laneMachine) sync(t *testing.T) memsync.Report {
	t.Helper()
	rep, err := m.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("lane sync in %s: %v", m.dir, err)
	}
	return rep
}

// laneConflicts has a and b edit each key, b's edit on the server first:
// a keeps each edit of its own in a conflict copy, which it returns by key.
func laneConflicts(t *testing.T, a, b *laneMachine, keys ...string) map[string]string {
	t.Helper()
	for _, k := range keys {
		claudetest.WriteNote(t, a.dir, k, k+" v1\n")
	}
	a.sync(t)
	b.sync(t)
	for _, k := range keys {
		claudetest.WriteNote(t, b.dir, k, k+" from B\n")
	}
	b.sync(t)
	for _, k := range keys {
		claudetest.WriteNote(t, a.dir, k, k+" from A\n")
	}
	copies := map[string]string{}
	for _, c := range a.sync(t).Conflicts {
		copies[c.Key] = c.Path
	}
	if len(copies) != len(keys) {
		t.Fatalf("conflict copies on A = %v, want one of each of %v", copies, keys)
	}
	return copies
}

// laneLab is a real server, a user's personal key stored on it and on this
// machine, a Claude Code project acme/app the config names, and the
// config that names it.
type laneLab struct {
	srv              *servertest.Server
	keys             personal.Keys
	home, mem, team  string
	state, work, cfg string
}

func newLaneLab(t *testing.T) *laneLab {
	t.Helper()
	srv := servertest.Start(t)
	isolateConfig(t)
	t.Setenv(envServer, "")
	t.Setenv(envTokenFile, "")
	t.Setenv(envStateDir, "")
	t.Setenv(envToken, srv.Token)
	l := &laneLab{srv: srv, home: t.TempDir(), state: t.TempDir(), work: t.TempDir()}
	t.Setenv("CLAUDE_CONFIG_DIR", l.home)
	l.mem = filepath.Join(l.home, "projects", "-src-app", "memory")
	l.team = filepath.Join(l.mem, "team")
	if err := os.MkdirAll(l.team, 0o700); err != nil {
		t.Fatal(err)
	}
	l.cfg = writeConfig(t, fmt.Sprintf("[client]\nserver = %q\nstate_dir = %q\n\n[personal]\nuser_files = true\n\n[[daemon.repo]]\ndir = %q\nrepo = \"acme/app\"\n",
		srv.URL, l.state, l.team))
	t.Setenv("TEAMMEMD_CONFIG", l.cfg)
	k := storePersonalKey(t, srv.URL)
	personaltest.Init(t, srv.URL, srv.Token, k)
	l.keys = personal.Keys{Current: k}
	t.Chdir(l.work)
	return l
}

// cli runs teammemd with args and wants exit code want.
func (l *laneLab) cli(t *testing.T, want int, args ...string) string {
	t.Helper()
	stdout, stderr, code := runCLI(t, args...)
	if code != want {
		t.Fatalf("teammemd %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, stdout, stderr)
	}
	return stdout + stderr
}

// teamConflict gives acme/app's team directory a conflict copy of key, by
// a teammate's edit pushed first from a directory of their own.
func (l *laneLab) teamConflict(t *testing.T, key string) {
	t.Helper()
	mate, mateState := t.TempDir(), t.TempDir()
	claudetest.WriteNote(t, l.team, key, "team v1\n")
	l.cli(t, 0, "sync", "--dir", l.team, "--repo", "acme/app")
	l.cli(t, 0, "sync", "--dir", mate, "--repo", "acme/app", "--state-dir", mateState)
	claudetest.WriteNote(t, mate, key, "team from a teammate\n")
	l.cli(t, 0, "sync", "--dir", mate, "--repo", "acme/app", "--state-dir", mateState)
	claudetest.WriteNote(t, l.team, key, "team from A\n")
	if out := l.cli(t, 0, "sync", "--dir", l.team, "--repo", "acme/app"); !strings.Contains(out, "conflict  "+key) {
		t.Fatalf("team sync made no conflict copy of %s:\n%s", key, out)
	}
}

// A conflict copy of the personal lane is listed by teammemd conflicts
// and settled by teammemd conflicts resolve in each of its modes, named
// by key with --personal or by the copy's path, as the listing says; the
// team lane's copy of a note of the same name is settled apart, and
// neither lane's content reaches the other.
func TestResolvePersonalLaneCopy(t *testing.T) {
	l := newLaneLab(t)
	a := openLaneMachine(t, l.srv, l.keys, "acme/app", l.mem, l.state)
	b := openLaneMachine(t, l.srv, l.keys, "acme/app", t.TempDir(), t.TempDir())
	copies := laneConflicts(t, a, b, "plans.md", "prefs.md", "tools.md")
	l.teamConflict(t, "plans.md")
	teamCopy := l.listed(t, copies)
	l.refused(t, copies["plans.md"], teamCopy)

	// Without --personal, KEY names the team lane's note, as before.
	l.cli(t, 0, "conflicts", "resolve", "plans.md", "--keep", "local")
	if got := claudetest.ReadNote(t, l.team, "plans.md"); got != "team from A\n" {
		t.Errorf("team plans.md = %q, want the team copy kept", got)
	}
	if got := claudetest.ReadNote(t, l.mem, "plans.md"); got != "plans.md from B\n" {
		t.Errorf("personal plans.md = %q after the team copy was settled, want it untouched", got)
	}

	out := l.cli(t, 0, "conflicts", "resolve", copies["prefs.md"], "--keep", "server")
	if !strings.Contains(out, "resolved  prefs.md: kept server") {
		t.Errorf("resolve COPY --keep server said:\n%s", out)
	}
	out = l.cli(t, 0, "conflicts", "resolve", "plans.md", "--personal", "--keep", "local")
	if !strings.Contains(out, "resolved  plans.md: kept local; removed "+copies["plans.md"]) {
		t.Errorf("resolve --personal --keep local said:\n%s", out)
	}
	writeFile(t, filepath.Join(l.work, "merged.md"), "tools merged\n", 0o600)
	l.cli(t, 0, "conflicts", "resolve", "tools.md", "--personal", "--keep", "merged.md")

	want := map[string]string{"plans.md": "plans.md from A\n", "prefs.md": "prefs.md from B\n", "tools.md": "tools merged\n"}
	b.sync(t)
	for k, v := range want {
		if got := claudetest.ReadNote(t, l.mem, k); got != v {
			t.Errorf("A's personal %s = %q, want %q", k, got, v)
		}
		if got := claudetest.ReadNote(t, b.dir, k); got != v {
			t.Errorf("B's personal %s = %q, want %q", k, got, v)
		}
		if _, err := os.Stat(copies[k]); !os.IsNotExist(err) {
			t.Errorf("the copy of %s is still there (%v), want it removed once settled", k, err)
		}
	}
	if out := l.cli(t, 0, "conflicts"); !strings.Contains(out, "no conflict copies") {
		t.Errorf("conflicts after settling every copy:\n%s", out)
	}
	l.lanesApart(t, a)
}

// listed checks what teammemd conflicts says of the team copy of plans.md
// and of the lane's copies: each under its project, the hint for each
// lane, and in JSON the lane and project. It returns the team copy.
func (l *laneLab) listed(t *testing.T, copies map[string]string) string {
	t.Helper()
	out := l.cli(t, 0, "conflicts")
	if !regexp.MustCompile(`(?m)^acme/app +plans\.md +.* local edit +\d+ +.*acme\+app@`).MatchString(out) {
		t.Errorf("conflicts lists no team copy of plans.md:\n%s", out)
	}
	for k, p := range copies {
		if !regexp.MustCompile(`(?m)^acme/app \(personal lane\) +` + regexp.QuoteMeta(k) + ` .*` + regexp.QuoteMeta(p) + `$`).MatchString(out) {
			t.Errorf("conflicts lists no personal lane copy of %s at %s:\n%s", k, p, out)
		}
	}
	for _, hint := range []string{"teammemd conflicts resolve KEY --keep local|server|FILE", "teammemd conflicts resolve KEY --personal --keep local|server|FILE"} {
		if !strings.Contains(out, hint) {
			t.Errorf("conflicts gives no hint %q:\n%s", hint, out)
		}
	}
	listed := l.listJSON(t)
	teamCopy := ""
	for _, c := range listed {
		switch {
		case c.Lane == "" && c.Project == "" && c.Repo == "acme/app":
			teamCopy = c.Copy
		case c.Lane != "personal" || c.Project != "acme/app" || c.Copy != copies[c.Key]:
			t.Errorf("conflicts --json lists %+v, want the lane and project of a personal lane's copy", c)
		}
	}
	if len(listed) != len(copies)+1 || teamCopy == "" {
		t.Fatalf("conflicts --json lists %+v, want the team copy and the lane's", listed)
	}
	return teamCopy
}

// listedCopy is what conflicts --json says of one copy.
type listedCopy struct {
	Repo, Lane, Project, Key, Copy string
}

// listJSON is what conflicts --json lists.
func (l *laneLab) listJSON(t *testing.T) []listedCopy {
	t.Helper()
	stdout, stderr, code := runCLI(t, "conflicts", "--json")
	var listed struct{ Conflicts []listedCopy }
	if err := json.Unmarshal([]byte(stdout), &listed); code != 0 || stderr != "" || err != nil {
		t.Fatalf("conflicts --json: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	return listed.Conflicts
}

// refused checks that a lane with no such copy, and the team copy named
// as a lane's, are refused, and that they touch neither copy.
func (l *laneLab) refused(t *testing.T, laneCopy, teamCopy string) {
	t.Helper()
	out := l.cli(t, exitFailure, "conflicts", "resolve", "plans.md", "--personal", "--repo", "acme/web", "--keep", "local")
	if !strings.Contains(out, "no conflict copy of plans.md in the personal lane of acme/web") {
		t.Errorf("resolve in a lane with no copy said:\n%s", out)
	}
	out = l.cli(t, exitUsage, "conflicts", "resolve", teamCopy, "--personal", "--keep", "local")
	if !strings.Contains(out, "the team repo acme/app has one: leave out --personal") {
		t.Errorf("resolve of the team copy with --personal said:\n%s", out)
	}
	for _, p := range []string{laneCopy, teamCopy} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a refused resolve removed the copy %s: %v", p, err)
		}
	}
}

// lanesApart checks that the team repo holds only the team's notes and
// the personal lane only the lane's.
func (l *laneLab) lanesApart(t *testing.T, a *laneMachine) {
	t.Helper()
	c, err := memsync.NewClient(l.srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: l.srv.Token}))
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := c.Get(context.Background(), "acme/app", "")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range full.Content.Entries {
		if k != "plans.md" || !strings.HasPrefix(v, "team ") {
			t.Errorf("the team repo holds %s = %q, want only the team's plans.md", k, v)
		}
	}
	for _, f := range []string{"prefs.md", "tools.md"} {
		if got := claudetest.ReadNote(t, l.team, f); got != "<missing>" {
			t.Errorf("team directory holds %s = %q, want none", f, got)
		}
	}
	rep, err := a.eng.Sync(context.Background())
	if err != nil || len(rep.Pulled)+len(rep.Pushed)+len(rep.Conflicts) != 0 {
		t.Errorf("the lane after settling: %+v, %v; want it in sync", rep, err)
	}
}

// A copy of the user files' lane is found by key with --personal from
// anywhere when it alone has one; when the project's lane has a copy of
// the same key too, resolve names both, and --repo picks one by its
// project or its state's name.
func TestResolveUserFilesLaneCopy(t *testing.T) {
	l := newLaneLab(t)
	a := openLaneMachine(t, l.srv, l.keys, personal.UserProject, l.home, l.state)
	b := openLaneMachine(t, l.srv, l.keys, personal.UserProject, t.TempDir(), t.TempDir())
	userCopies := laneConflicts(t, a, b, "CLAUDE.md", "rules/go.md")
	pa := openLaneMachine(t, l.srv, l.keys, "acme/app", l.mem, l.state)
	pb := openLaneMachine(t, l.srv, l.keys, "acme/app", t.TempDir(), t.TempDir())
	projCopies := laneConflicts(t, pa, pb, "CLAUDE.md")

	out := l.cli(t, 0, "conflicts")
	if !regexp.MustCompile(`(?m)^~user \(personal lane\) +rules/go\.md `).MatchString(out) {
		t.Errorf("conflicts lists no user files' copy of rules/go.md:\n%s", out)
	}
	l.heldForSecret(t, b, "rules/go.md", userCopies["rules/go.md"])

	out = l.cli(t, exitUsage, "conflicts", "resolve", "CLAUDE.md", "--personal", "--keep", "server")
	for _, want := range []string{"2 personal lanes have a conflict copy of CLAUDE.md", userCopies["CLAUDE.md"], projCopies["CLAUDE.md"]} {
		if !strings.Contains(out, want) {
			t.Errorf("resolve of a key two lanes have copies of says:\n%s\nwant %q", out, want)
		}
	}
	for _, p := range []string{userCopies["CLAUDE.md"], projCopies["CLAUDE.md"]} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("an ambiguous resolve touched the copy %s: %v", p, err)
		}
	}
	l.cli(t, 0, "conflicts", "resolve", "CLAUDE.md", "--personal", "--repo", personal.UserProject, "--keep", "server")
	if got := claudetest.ReadNote(t, l.home, "CLAUDE.md"); got != "CLAUDE.md from B\n" {
		t.Errorf("user CLAUDE.md = %q, want the server's", got)
	}
	if _, err := os.Stat(projCopies["CLAUDE.md"]); err != nil {
		t.Errorf("settling the user files' copy touched the project lane's: %v", err)
	}
	state := ""
	for _, c := range l.listJSON(t) {
		if c.Project == "acme/app" {
			state = c.Repo
		}
	}
	l.cli(t, 0, "conflicts", "resolve", "CLAUDE.md", "--repo", state, "--keep", "local")
	if got := claudetest.ReadNote(t, l.mem, "CLAUDE.md"); got != "CLAUDE.md from A\n" {
		t.Errorf("project CLAUDE.md = %q, want the copy kept", got)
	}
}

// heldForSecret checks that a FILE with a secret in it is written here but
// never sealed and sent: the copy at cp stays until a version is on the
// server, and the version not sent is kept as a copy of its own once
// another is kept instead.
func (l *laneLab) heldForSecret(t *testing.T, b *laneMachine, key, cp string) {
	t.Helper()
	secret := "aws_access_key_id = " + "AKIA" + "Z7QW3RTY5UIO2PLK\n"
	writeFile(t, filepath.Join(l.work, "secret.md"), secret, 0o600)
	out := l.cli(t, exitFailure, "conflicts", "resolve", key, "--personal", "--keep", "secret.md")
	if !strings.Contains(out, "blocked   "+key) {
		t.Errorf("resolve with a secret said:\n%s", out)
	}
	if _, err := os.Stat(cp); err != nil {
		t.Errorf("the copy went though its replacement was not pushed: %v", err)
	}
	if b.sync(t); claudetest.ReadNote(t, b.dir, key) != key+" from B\n" {
		t.Errorf("B's %s = %q after a resolve held back for a secret", key, claudetest.ReadNote(t, b.dir, key))
	}
	l.cli(t, 0, "conflicts", "resolve", key, "--personal", "--keep", "local")
	if got := claudetest.ReadNote(t, l.home, key); got != key+" from A\n" {
		t.Errorf("%s = %q, want the copy kept", key, got)
	}
	if !holdsCopy(t, l.state, secret) {
		t.Errorf("the version held back for a secret is not kept as a conflict copy")
	}
}

// holdsCopy reports whether a conflict copy under state holds content.
func holdsCopy(t *testing.T, state, content string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(filepath.Join(state, "conflicts"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		found = found || err == nil && string(data) == content
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
