package memsync

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

// TestLogNamesRepoOnce checks that every line the engine logs carries the
// repo exactly once.
func TestLogNamesRepoOnce(t *testing.T) {
	srv := servertest.Start(t)
	var buf bytes.Buffer
	p := newPeer(t, srv.URL, srv.Token, nil)
	eng, err := New(Config{Dir: p.dir, Repo: testRepo, Server: srv.URL, StateDir: p.state}, Options{
		Client: testClient(t, srv.URL, srv.Token),
		Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	p.write(t, "a.md", "a\n")
	if _, err := eng.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) < 2 {
		t.Fatalf("engine logged %d lines, want the push's debug lines: %s", len(lines), buf.String())
	}
	for _, line := range lines {
		if n := strings.Count(line, "repo="+testRepo); n != 1 {
			t.Errorf("log line names the repo %d times, want once: %s", n, line)
		}
	}
}
