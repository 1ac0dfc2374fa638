package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// TestControlSocketStatus runs on the real wiring, outside a bubble: its
// status API is served on a Unix socket, whose waits the bubble's clock
// cannot see past, so it waits in real time.
func TestControlSocketStatus(t *testing.T) {
	srv := startServer(t)
	sock := filepath.Join(t.TempDir(), "run", SocketName)
	ln, err := Listen(sock)
	if err != nil {
		t.Fatalf("Listen(%q) error: %v", sock, err)
	}
	for path, want := range map[string]os.FileMode{sock: 0o600, filepath.Dir(sock): 0o700} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("mode of %s = %o, want %o", path, got, want)
		}
	}
	if _, err := Listen(sock); err == nil {
		t.Errorf("second Listen(%q) error = nil, want another daemon running", sock)
	}
	dir := t.TempDir()
	n := startNode(t, srv.Token, Plan{
		Specs:   []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}},
		Skipped: []Skipped{{Source: "claude project x", Reason: "no transcript"}},
	}, func(o *Options) { o.Control = ln; o.Version = "v-test" })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	eventually(t, "status over the socket", func() bool {
		st, err := FetchStatus(ctx, sock)
		return err == nil && len(st.Repos) == 1 && st.Repos[0].Live
	})
	st, _ := FetchStatus(ctx, sock)
	if st.Repos[0].Repo != slug || st.Repos[0].Dir != dir || st.Version != "v-test" || len(st.Skipped) != 1 {
		t.Errorf("FetchStatus() = %+v, want repo %s in %s, version v-test, one skipped", st, slug, dir)
	}
	n.stop(t)
	if _, err := FetchStatus(ctx, sock); !errors.Is(err, ErrNotRunning) {
		t.Errorf("FetchStatus() after stop error = %v, want ErrNotRunning", err)
	}
	// A stale socket file is replaced.
	ln2, err := Listen(sock)
	if err != nil {
		t.Fatalf("Listen over a stale socket error: %v", err)
	}
	ln2.Close()
}

func TestReadOnlyTokenStopsPushes(t *testing.T) { bubble(t, testReadOnlyTokenStopsPushes) }

func testReadOnlyTokenStopsPushes(t *testing.T) {
	srv := startServer(t)
	readOnly := srv.CreateToken(t, "reader", store.Grant{Pattern: "acme/**", Level: store.LevelRead})
	dir := t.TempDir()
	n := startNode(t, readOnly, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, nil)
	write(t, dir, "a.md", "a\n")
	eventually(t, "pushes suppressed", func() bool { r, _ := n.repoStatus(dir); return r.Suppressed != "" })
	puts := n.count.puts.Load()
	// Nothing changed: a config reload clears the suppression once.
	if err := n.d.Reload(context.Background(), Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "one more refused push", func() bool { return n.count.puts.Load() == puts+1 })
	eventually(t, "suppressed again", func() bool { r, _ := n.repoStatus(dir); return r.Suppressed != "" })
	if r, _ := n.repoStatus(dir); r.NextRetry != nil {
		t.Errorf("next retry = %v after a permanent refusal, want none", r.NextRetry)
	}
}

func TestBackoffGrowsAndCaps(t *testing.T) {
	b := backoff{min: 100 * time.Millisecond, max: time.Second}
	wantMax := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, m := range wantMax {
		m *= time.Millisecond
		got := b.next()
		if got < m/2 || got > m {
			t.Errorf("backoff attempt %d = %v, want in [%v, %v]", i, got, m/2, m)
		}
	}
	b.reset()
	if got := b.next(); got > 100*time.Millisecond {
		t.Errorf("backoff after reset = %v, want at most 100ms", got)
	}
}
