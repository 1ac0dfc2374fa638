package teamindex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
)

const testRepo = "acme/app"

// fixture is a team directory synced with a real server by a real
// engine, its state in a state root of its own.
type fixture struct {
	srv *servertest.Server
	src Source
	eng *memsync.Engine
}

// newFixture starts a server (with opts) and an engine, with scanner,
// on a new team directory.
func newFixture(t testing.TB, scanner memsync.SecretScanner, opts ...servertest.Option) *fixture {
	t.Helper()
	return newFixtureIn(t, filepath.Join(t.TempDir(), "team"), scanner, opts...)
}

// newFixtureIn is newFixture on the team directory dir.
func newFixtureIn(t testing.TB, dir string, scanner memsync.SecretScanner, opts ...servertest.Option) *fixture {
	t.Helper()
	srv := servertest.Start(t, opts...)
	src := Source{Dir: dir, Repo: testRepo, Server: srv.URL, StateDir: t.TempDir()}
	if err := os.MkdirAll(src.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	client, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}),
		memsync.WithRetry(0, time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := memsync.New(memsync.Config{Dir: src.Dir, Repo: src.Repo, Server: src.Server, StateDir: src.StateDir},
		memsync.Options{Client: client, Scanner: scanner})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{srv: srv, src: src, eng: eng}
}

// write writes a note, its mtime at (the zero time: now).
func (f *fixture) write(t testing.TB, key, content string, at time.Time) {
	t.Helper()
	path := filepath.Join(f.src.Dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if !at.IsZero() {
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// sync pulls and pushes once, then refreshes the provenance record as
// the daemon does after a sync.
func (f *fixture) sync(t testing.TB) memsync.Report {
	t.Helper()
	rep, err := f.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync() error = %v", err)
	}
	if err := f.eng.RefreshProvenance(context.Background()); err != nil {
		t.Fatalf("RefreshProvenance() error = %v", err)
	}
	return rep
}

// render builds and renders the fixture's index at now.
func (f *fixture) render(t testing.TB, now time.Time) string {
	t.Helper()
	idx, err := Build(f.src)
	if err != nil {
		t.Fatalf("Build() error = %v", err)
	}
	var b strings.Builder
	if err := Render(&b, idx, now); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// note is a note's text with the frontmatter Claude Code writes.
func note(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\ntype: project\n---\n" + body
}
