package teamindex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

// checkoutFixture is a git checkout of acme/app, with a directory sub,
// whose Claude Code team directory a fixture syncs, and a directory that
// is no checkout.
func checkoutFixture(t *testing.T) (f *fixture, checkout, plain string) {
	t.Helper()
	base, home := claudetest.Home(t)
	checkout = claudetest.Checkout(t, filepath.Join(base, "src", "app"), "git@github.com:acme/app.git")
	f = newFixtureIn(t, claude.TeamDir(home, checkout), nil)
	f.write(t, "deploy.md", note("Deploy", "how we ship", "body\n"), time.Now().Add(-time.Hour))
	f.sync(t)
	plain = filepath.Join(base, "plain")
	for _, d := range []string{plain, filepath.Join(checkout, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f, checkout, plain
}

// sessionStart runs SessionStart with stdin and locate, and returns what
// it wrote.
func sessionStart(stdin string, locate func(claude.Repo) (Source, error)) string {
	var out strings.Builder
	SessionStart(context.Background(), strings.NewReader(stdin), &out, Options{Locate: locate})
	return out.String()
}

// TestSessionStart: the hook prints the index of the checkout the
// session's cwd is in, from the input or else the process's working
// directory; outside a checkout it prints nothing, and where there is no
// index to give, one line that says why.
func TestSessionStart(t *testing.T) {
	f, checkout, plain := checkoutFixture(t)
	found := func(r claude.Repo) (Source, error) {
		if r.Slug != f.src.Repo || r.Dir != f.src.Dir {
			return Source{}, errors.New("located " + r.Slug + " in " + r.Dir)
		}
		return f.src, nil
	}
	stateless := func(claude.Repo) (Source, error) {
		src := f.src
		src.StateDir = filepath.Join(t.TempDir(), "none")
		return src, nil
	}
	unconfigured := func(claude.Repo) (Source, error) { return Source{}, errors.New("no server configured") }
	input := func(cwd string) string {
		return `{"hook_event_name":"SessionStart","source":"startup","cwd":"` + cwd + `"}`
	}
	index := "Team memory of acme/app: notes shared with every teammate by teammemd, kept in " + f.src.Dir + "\n"
	tests := []struct {
		name, stdin string
		chdir       string
		locate      func(claude.Repo) (Source, error)
		want        string // what the output starts with; "" for none
	}{
		{"cwd in the checkout", input(checkout), "", found, index},
		{"cwd below the checkout's root", input(filepath.Join(checkout, "sub")), "", found, index},
		{"no input: the working directory", "", checkout, found, index},
		{"input not JSON: the working directory", "{cwd", checkout, found, index},
		{"cwd not in a checkout", input(plain), "", found, ""},
		{"cwd missing", input(filepath.Join(plain, "gone")), "", found, ""},
		{"no server configured", input(checkout), "", unconfigured, "teammemd: team notes not listed: no server configured\n"},
		{"never synced", input(checkout), "", stateless, "teammemd: the team notes of acme/app are listed once the daemon has synced them on this machine"},
	}
	for _, tt := range tests {
		if tt.chdir != "" {
			t.Chdir(tt.chdir)
		}
		got := sessionStart(tt.stdin, tt.locate)
		if !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
			t.Errorf("%s: SessionStart wrote %q, want it to start with %q", tt.name, got, tt.want)
		}
	}
}

// TestSessionStartUnreadable: a corrupt state or a team directory gone
// gives one line, never a failure.
func TestSessionStartUnreadable(t *testing.T) {
	f, checkout, _ := checkoutFixture(t)
	located := func(claude.Repo) (Source, error) { return f.src, nil }
	input := `{"cwd":"` + checkout + `"}`
	if err := os.RemoveAll(f.src.Dir); err != nil {
		t.Fatal(err)
	}
	if got := sessionStart(input, located); !strings.HasPrefix(got, "teammemd: team notes of acme/app not listed: ") || strings.Count(got, "\n") != 1 {
		t.Errorf("SessionStart(team directory gone) wrote %q, want one line why", got)
	}
	statePath := filepath.Join(filepath.Dir(mustProvenancePath(t, f.src)), "state.json")
	if err := os.WriteFile(statePath, []byte("{corrupt"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := sessionStart(input, located)
	if !strings.HasPrefix(got, "teammemd: team notes of acme/app not listed: ") || strings.Count(got, "\n") != 1 || !strings.Contains(got, statePath) {
		t.Errorf("SessionStart(corrupt state) wrote %q, want one line naming %s", got, statePath)
	}
}

// TestSessionStartTimeout: a step that does not return in time gives one
// line at the deadline.
func TestSessionStartTimeout(t *testing.T) {
	_, checkout, _ := checkoutFixture(t)
	release := make(chan struct{})
	defer close(release)
	stuck := func(claude.Repo) (Source, error) { <-release; return Source{}, errors.New("released") }
	var out strings.Builder
	SessionStart(context.Background(), strings.NewReader(`{"cwd":"`+checkout+`"}`), &out, Options{Locate: stuck, Timeout: 100 * time.Millisecond})
	if want := "teammemd: the team notes index took too long to read"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("SessionStart(stuck) wrote %q, want %q", out.String(), want)
	}
}

// TestBuildNeverSynced: Build of a repo never synced is
// memsync.ErrNoState.
func TestBuildNeverSynced(t *testing.T) {
	f := newFixture(t, nil)
	f.src.StateDir = t.TempDir()
	if _, err := Build(f.src); !errors.Is(err, memsync.ErrNoState) {
		t.Errorf("Build(never synced) error = %v, want memsync.ErrNoState", err)
	}
}
