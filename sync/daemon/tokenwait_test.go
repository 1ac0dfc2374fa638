package daemon

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A repo whose token file gives no token (two lines, empty, or not there
// yet) is listed as waiting for a valid token file, naming the problem,
// and sends nothing; once the file holds a token it starts and syncs,
// with no reload.
func TestBadTokenFileWaitsForFix(t *testing.T) { bubble(t, testBadTokenFileWaitsForFix) }

func testBadTokenFileWaitsForFix(t *testing.T) {
	srv := startServer(t)
	tests := []struct {
		name, content string
		missing       bool // no file at all
		problem       string
	}{
		{"two lines", srv.Token + "\n# the team's token\n", false, "the API token must be one word"},
		{"empty", "\n", false, "is empty"},
		{"missing", "", true, "no such file"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		write(t, dir, "MEMORY.md", "# "+tt.name+"\n")
		file := filepath.Join(t.TempDir(), "token")
		if !tt.missing {
			writeToken(t, file, tt.content)
		}
		logs := newLogRecorder()
		spec := Spec{Repo: "acme/" + strings.ReplaceAll(tt.name, " ", "-"), Dir: dir, Server: srv.URL, TokenFile: file, Source: "test"}
		n := startNode(t, "", Plan{Specs: []Spec{spec}}, func(o *Options) { o.Logger = slog.New(logs) })
		r := n.settles(t, dir, tt.name+": repo waits for its token file", func(r RepoStatus) bool { return r.State == StateNoToken })
		if !strings.Contains(r.Halted, "waiting for a valid token file") || !strings.Contains(r.Halted, file) || !strings.Contains(r.Halted, tt.problem) {
			t.Errorf("%s: Halted = %q, want it to wait for a valid token file, naming %s and %q", tt.name, r.Halted, file, tt.problem)
		}
		if got := logs.count(msgTokenWait); got != 1 {
			t.Errorf("%s: %q logged %d times, want once", tt.name, msgTokenWait, got)
		}
		if st := n.d.Status(); len(st.Skipped) != 0 {
			t.Errorf("%s: Skipped = %v, want the repo listed as waiting, not skipped", tt.name, st.Skipped)
		}
		time.Sleep(time.Minute) // on the fake clock: many credential checks
		if got := n.count.all.Load(); got != 0 {
			t.Errorf("%s: %d requests sent while the token file gives no token, want none", tt.name, got)
		}

		writeToken(t, file, srv.Token+"\n")
		n.settles(t, dir, tt.name+": repo started and idle", func(r RepoStatus) bool { return r.State == StateIdle && r.Halted == "" })
		if got := repoEntries(t, srv, spec.Repo)["MEMORY.md"]; got != "# "+tt.name+"\n" {
			t.Errorf("%s: MEMORY.md on the server = %q after the token file was fixed, want it pushed", tt.name, got)
		}
		n.stop(t)
	}
}

// The goroutine that reads a waiting repo's token file ends when a reload
// removes the repo and when the daemon stops; a reload that keeps the repo
// tries it again, and a rediscovery leaves the wait alone.
func TestTokenWaitEnds(t *testing.T) { bubble(t, testTokenWaitEnds) }

func testTokenWaitEnds(t *testing.T) {
	srv := startServer(t)
	file := filepath.Join(t.TempDir(), "token")
	writeToken(t, file, "")
	spec := Spec{Repo: slug, Dir: t.TempDir(), Server: srv.URL, TokenFile: file, Source: "test"}
	logs := newLogRecorder()
	n := startNode(t, "", Plan{Specs: []Spec{spec}}, func(o *Options) { o.Logger = slog.New(logs) })
	n.settles(t, spec.Dir, "repo waits for its token file", func(r RepoStatus) bool { return r.State == StateNoToken })
	ctx := context.Background()

	first := n.tokenWait(t, spec)
	if err := n.d.Reload(ctx, Plan{Specs: []Spec{spec}, Rediscovered: true}); err != nil {
		t.Fatal(err)
	}
	if w := n.tokenWait(t, spec); w != first || ended(first) || logs.count(msgTokenWait) != 1 {
		t.Errorf("after a rediscovery: same wait %v, ended %v, %q logged %d times; want the wait kept, running, logged once",
			w == first, ended(first), msgTokenWait, logs.count(msgTokenWait))
	}
	if err := n.d.Reload(ctx, Plan{Specs: []Spec{spec}}); err != nil {
		t.Fatal(err)
	}
	second := n.tokenWait(t, spec)
	if second == first || !ended(first) || logs.count(msgTokenWait) != 2 {
		t.Errorf("after a reload: new wait %v, first ended %v, %q logged %d times; want the repo tried again, the first wait ended",
			second != first, ended(first), msgTokenWait, logs.count(msgTokenWait))
	}

	if err := n.d.Reload(ctx, Plan{}); err != nil {
		t.Fatal(err)
	}
	if !ended(second) || len(n.d.Status().Repos) != 0 {
		t.Errorf("after a reload without the repo: wait ended %v, status lists %v; want it ended and the repo gone", ended(second), n.d.Status().Repos)
	}
	writeToken(t, file, srv.Token)
	time.Sleep(time.Minute)
	if got := n.count.all.Load(); got != 0 {
		t.Errorf("%d requests sent for a repo the reload removed, want none", got)
	}

	writeToken(t, file, "two\nlines\n")
	if err := n.d.Reload(ctx, Plan{Specs: []Spec{spec}}); err != nil {
		t.Fatal(err)
	}
	n.settles(t, spec.Dir, "repo waits again", func(r RepoStatus) bool { return r.State == StateNoToken })
	third := n.tokenWait(t, spec)
	n.stop(t)
	if !ended(third) {
		t.Error("the wait for the token file still runs after the daemon stopped")
	}
}

// tokenWait returns the daemon's wait for spec's token file, failing the
// test when there is none.
func (n *node) tokenWait(t *testing.T, spec Spec) *tokenWait {
	t.Helper()
	n.d.mu.Lock()
	defer n.d.mu.Unlock()
	w, ok := n.d.waiting[spec.key()]
	if !ok {
		t.Fatalf("no wait for the token file of %s", spec.Repo)
	}
	return w
}

// ended reports whether w's goroutine has ended.
func ended(w *tokenWait) bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// A token file written with a token the server rejects, and then with
// two lines, has the repo wait for a valid file instead of skipping it;
// the next fix of the file starts it.
func TestRejectedThenMalformedTokenWaits(t *testing.T) {
	bubble(t, testRejectedThenMalformedTokenWaits)
}

func testRejectedThenMalformedTokenWaits(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	write(t, dir, "MEMORY.md", "# team\n")
	file := filepath.Join(t.TempDir(), "token")
	writeToken(t, file, "tmd_wrong")
	n := startNode(t, "", Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, TokenFile: file, Source: "test"}}}, nil)
	n.settles(t, dir, "repo stopped as unauthorized", func(r RepoStatus) bool { return r.State == StateUnauthorized })

	writeToken(t, file, srv.Token+"\n# a comment\n")
	r := n.settles(t, dir, "repo waits for a valid token file", func(r RepoStatus) bool { return r.State == StateNoToken })
	if !strings.Contains(r.Halted, "the API token must be one word") {
		t.Errorf("Halted = %q, want the problem with the token file", r.Halted)
	}
	if st := n.d.Status(); len(st.Skipped) != 0 {
		t.Errorf("Skipped = %v, want the repo waiting, not skipped", st.Skipped)
	}

	writeToken(t, file, srv.Token+"\n")
	n.settles(t, dir, "repo started and idle", func(r RepoStatus) bool { return r.State == StateIdle })
	if got := serverEntries(t, srv)["MEMORY.md"]; got != "# team\n" {
		t.Errorf("MEMORY.md on the server = %q, want it pushed once the token file was fixed", got)
	}
}

// gateHandler holds the logging goroutine at the first record of msg
// until the test has looked at the daemon.
type gateHandler struct {
	slog.Handler
	msg           string
	hit, released chan struct{}
}

func (g *gateHandler) Enabled(context.Context, slog.Level) bool { return true }

func (g *gateHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == g.msg {
		select {
		case g.hit <- struct{}{}:
			<-g.released
		default:
		}
	}
	return g.Handler.Handle(ctx, r)
}

// The repo waiting for its token file is in the status by the time the
// log says it waits: a status asked on that line finds it in state
// no-token, not missing from the list.
func TestTokenWaitListedWhenLogged(t *testing.T) {
	srv := startServer(t)
	dir := t.TempDir()
	spec := Spec{Repo: slug, Dir: dir, Server: srv.URL, TokenFile: filepath.Join(t.TempDir(), "token"), Source: "test"}
	// hit holds one: the line may come before the test waits for it.
	gate := &gateHandler{Handler: slog.DiscardHandler, msg: msgTokenWait, hit: make(chan struct{}, 1), released: make(chan struct{})}
	n := startNode(t, "", Plan{Specs: []Spec{spec}}, func(o *Options) { o.Logger = slog.New(gate) })
	select {
	case <-gate.hit:
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon never logged that the repo waits for its token file")
	}
	r, ok := n.repoStatus(dir)
	close(gate.released)
	if !ok || r.State != StateNoToken {
		t.Errorf("status when the wait is logged: listed %v, state %q; want listed, %s", ok, r.State, StateNoToken)
	}
}
