package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// restore says a note was restored only once the server took the write:
// with a read-only token it is refused, and nothing on stdout claims the
// revision was pushed.
func TestRestoreReadOnly(t *testing.T) {
	srv := servertest.Start(t)
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	repo := []string{"--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--config", writeConfig(t, "")}
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	for _, content := range []string{"first\n", "second\n"} {
		if err := os.WriteFile(filepath.Join(dir, "deploy.md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := runCLI(t, append([]string{"sync"}, repo...)...); code != 0 {
			t.Fatalf("sync: exit %d\n%s", code, stderr)
		}
	}
	t.Setenv("TEAMMEMD_TOKEN", srv.CreateToken(t, "reader", store.Grant{Pattern: "acme/**", Level: store.LevelRead}))
	stdout, stderr, code := runCLI(t, append([]string{"restore", "deploy.md"}, repo...)...)
	if code != exitAuth || !strings.Contains(stderr, "nothing was written") {
		t.Errorf("restore with a read-only token: exit %d, stderr %q, want %d and nothing was written", code, stderr, exitAuth)
	}
	if strings.Contains(stdout, "pushed") || strings.Contains(stdout, "every teammate gets it") || strings.Contains(stdout, "restored") {
		t.Errorf("restore with a read-only token printed a success:\n%s", stdout)
	}
}
