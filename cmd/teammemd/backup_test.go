package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store/sqlite"
)

// TestAdminBackupAndRestore backs a database up with admin backup and
// restores it as docs/07-backup-restore.md says: the copy in a new data
// directory, then admin new-store-id; the restored database holds the
// history and answers under a new identity.
func TestAdminBackupAndRestore(t *testing.T) {
	dir := t.TempDir()
	seedLeak(t, dir)
	backup := filepath.Join(t.TempDir(), "teammemd-backup.db")
	stdout, stderr, code := runCLI(t, "admin", "backup", "--data", dir, "--to", backup)
	if code != 0 || !strings.Contains(stdout, "1 repos, 2 entries") || !strings.Contains(stdout, "store identity ") {
		t.Fatalf("admin backup = exit %d, %q, %q; want 1 repo and 2 entries backed up", code, stdout, stderr)
	}
	oldID := stdout[strings.LastIndex(stdout, " ")+1:]
	restored := t.TempDir()
	data, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(restored, sqlite.FileName), data, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runCLI(t, "admin", "new-store-id", "--data", restored)
	if code != 0 || strings.Contains(stdout, strings.TrimSpace(oldID)) {
		t.Fatalf("admin new-store-id on the restored copy = exit %d, %q, %q; want a new identity", code, stdout, stderr)
	}
	if revs := historyOf(t, filepath.Join(restored, sqlite.FileName), "a.md"); len(revs) != 2 {
		t.Errorf("the restored a.md has %d revisions, want 2", len(revs))
	}
}

func TestAdminBackupErrors(t *testing.T) {
	dir := t.TempDir()
	seedLeak(t, dir)
	taken := filepath.Join(t.TempDir(), "taken.db")
	if err := os.WriteFile(taken, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no --to", []string{"admin", "backup", "--data", dir}, 2, "--to is required"},
		{"PostgreSQL", []string{"admin", "backup", "--store", "postgres://u@127.0.0.1:1/db", "--to", filepath.Join(dir, "b.db")}, 2, "pg_dump"},
		{"no database", []string{"admin", "backup", "--data", filepath.Join(dir, "none"), "--to", filepath.Join(dir, "b.db")}, 1, "no such file"},
		{"target exists", []string{"admin", "backup", "--data", dir, "--to", taken}, 1, "exists"},
	}
	for _, tt := range tests {
		_, stderr, code := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q, want exit %d and %q", tt.name, code, stderr, tt.code, tt.want)
		}
	}
	if data, _ := os.ReadFile(taken); string(data) != "keep me" {
		t.Errorf("the existing file after a refused backup holds %q", data)
	}
}
