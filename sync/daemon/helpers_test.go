package daemon

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/scan"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/credential"
	"github.com/teammemd/teammemd/watch"
)

// testScanner is loaded once: building the gitleaks ruleset is slow.
var testScanner = sync.OnceValues(func() (*scan.Scanner, error) { return scan.New(scan.Config{}) })

// counter counts requests by method through a transport.
type counter struct {
	next http.RoundTripper
	puts atomic.Int64
	all  atomic.Int64
}

func (c *counter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.all.Add(1)
	if req.Method == http.MethodPut {
		c.puts.Add(1)
	}
	return c.next.RoundTrip(req)
}

// node is one running daemon with its own state directory.
type node struct {
	d      *Daemon
	count  *counter
	cancel context.CancelFunc
	done   chan error
}

// testOpener builds real engines and clients with short retries (or those
// of extra), all counted by c.
func testOpener(t testing.TB, token, stateDir string, c *counter, log *slog.Logger, extra ...memsync.ClientOption) Opener {
	return func(_ context.Context, s Spec) (Engine, Waiter, error) {
		sc, err := testScanner()
		if err != nil {
			return nil, nil, err
		}
		tok := token
		if s.TokenFile != "" {
			if tok, err = credential.ReadFile(s.TokenFile); err != nil {
				return nil, nil, err
			}
		}
		ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok})
		opts := append([]memsync.ClientOption{memsync.WithTransport(c), memsync.WithRetry(0, 50*time.Millisecond, 100*time.Millisecond)}, extra...)
		client, err := memsync.NewClient(s.Server, ts, opts...)
		if err != nil {
			return nil, nil, err
		}
		if s.Lane == LanePersonal {
			return openTestLane(s, client, stateDir, log)
		}
		eng, err := memsync.New(memsync.Config{Dir: s.Dir, Repo: s.Repo, Server: s.Server, StateDir: stateDir}, memsync.Options{Client: client, Scanner: sc, Logger: log})
		return eng, client, err
	}
}

// startNode runs a daemon on plan until the test ends. In a bubble (see
// bubble) its watchers poll on the fake clock and it reaches servers over
// the bubble's in-memory network.
func startNode(t testing.TB, token string, plan Plan, edit func(*Options)) *node {
	t.Helper()
	c := &counter{next: newTransport(t)}
	opts := Options{
		Open:         nil,
		Watch:        watch.Options{Debounce: 100 * time.Millisecond, MaxWait: time.Second},
		MinBackoff:   50 * time.Millisecond,
		MaxBackoff:   400 * time.Millisecond,
		WaitTimeout:  5 * time.Second,
		FlushTimeout: 3 * time.Second,
	}
	if edit != nil {
		edit(&opts)
	}
	if opts.Watch.Notify == nil {
		opts.Watch.Notify = notifyIn(t)
	}
	if opts.Open == nil {
		opts.Open = testOpener(t, token, t.TempDir(), c, opts.Logger)
	}
	d, err := New(opts)
	if err != nil {
		t.Fatalf("New() error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &node{d: d, count: c, cancel: cancel, done: make(chan error, 1)}
	go func() { n.done <- d.Run(ctx, plan) }()
	t.Cleanup(func() { n.stop(t) })
	return n
}

// stop cancels the daemon and waits for Run, at most 15s.
func (n *node) stop(t testing.TB) {
	t.Helper()
	n.cancel()
	select {
	case err, ok := <-n.done:
		if ok && err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
		if ok {
			close(n.done)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("daemon did not stop within 15s")
	}
}

// eventually waits until cond holds, checking it every 20ms for 20s. In a
// bubble the daemon has settled (synctest.Wait) before each check, and the
// 20ms steps and the 20s limit pass on the fake clock, at once. Outside one
// (the tests on the real watcher and real TCP) it polls in real time.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !within(t, 20*time.Second, cond) {
		t.Fatalf("timed out after 20s waiting for %s", what)
	}
}

// settles waits, as eventually does, for the status of the repo in dir to
// satisfy cond and returns it; it fails with the last status seen
// otherwise.
func (n *node) settles(t *testing.T, dir, what string, cond func(RepoStatus) bool) RepoStatus {
	t.Helper()
	var last RepoStatus
	if !within(t, 20*time.Second, func() bool { last, _ = n.repoStatus(dir); return cond(last) }) {
		t.Fatalf("timed out after 20s waiting for %s; status: %s", what, describe(last))
	}
	return last
}

// within checks cond every 20ms, in a bubble once the daemon has settled,
// and reports whether it held before limit passed.
func within(t testing.TB, limit time.Duration, cond func() bool) bool {
	settle := inBubble(t)
	deadline := time.Now().Add(limit)
	for {
		if settle {
			synctest.Wait()
		}
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fileIs(path, want string) func() bool {
	return func() bool {
		got, err := os.ReadFile(path)
		return err == nil && string(got) == want
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repoStatus returns the status of the repo in dir, or false.
func (n *node) repoStatus(dir string) (RepoStatus, bool) {
	for _, r := range n.d.Status().Repos {
		if r.Dir == dir {
			return r, true
		}
	}
	return RepoStatus{}, false
}

// logRecorder is a slog handler that keeps the messages logged, for tests
// that wait for a decision the daemon only logs.
type logRecorder struct {
	mu   *sync.Mutex
	msgs *[]string
}

func newLogRecorder() logRecorder { return logRecorder{mu: &sync.Mutex{}, msgs: &[]string{}} }

func (l logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l logRecorder) WithGroup(string) slog.Handler            { return l }

func (l logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	*l.msgs = append(*l.msgs, r.Message)
	return nil
}

// count returns how many times msg was logged.
func (l logRecorder) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range *l.msgs {
		if m == msg {
			n++
		}
	}
	return n
}
