package memsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"

	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

const testRepo = "acme/app"

// peer is one teammate's machine: a team dir and a state dir.
type peer struct {
	dir, state string
	eng        *Engine
}

func testClient(t testing.TB, url, token string, opts ...ClientOption) *Client {
	t.Helper()
	c, err := NewClient(url, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}),
		append([]ClientOption{WithRetry(1, time.Millisecond, 5*time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

func newPeer(t testing.TB, url, token string, scanner SecretScanner, opts ...ClientOption) *peer {
	t.Helper()
	p := &peer{dir: filepath.Join(t.TempDir(), "team"), state: t.TempDir()}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p.eng = newTestEngine(t, url, token, p.dir, p.state, scanner, opts...)
	return p
}

func newTestEngine(t testing.TB, url, token, dir, state string, scanner SecretScanner, opts ...ClientOption) *Engine {
	t.Helper()
	e, err := New(Config{Dir: dir, Repo: testRepo, Server: url, StateDir: state},
		Options{Client: testClient(t, url, token, opts...), Scanner: scanner})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

func (p *peer) sync(t testing.TB) Report {
	t.Helper()
	rep, err := p.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return rep
}

func (p *peer) write(t testing.TB, key, value string) {
	t.Helper()
	claudetest.WriteNote(t, p.dir, key, value)
}

// read returns a file's content, or "<missing>".
func (p *peer) read(t testing.TB, key string) string {
	t.Helper()
	return claudetest.ReadNote(t, p.dir, key)
}

func serverEntries(t testing.TB, srv *servertest.Server) map[string]string {
	t.Helper()
	snap, err := srv.Store.Snapshot(context.Background(), testRepo, true)
	if errors.Is(err, store.ErrNotFound) {
		return map[string]string{}
	}
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	return snap.Entries
}

func setMtime(t testing.TB, p *peer, key string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(filepath.Join(p.dir, filepath.FromSlash(key)), at, at); err != nil {
		t.Fatal(err)
	}
}
