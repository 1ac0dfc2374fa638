package main

import (
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store/sqlite"
)

// An admin command of a newer teammemd, or its migrate-store reading the
// database, leaves a database of an older schema as it is, where it
// migrated it, under the older server that may still run on it, and
// silently; it says how to migrate it. The server (serve --migrate-only)
// migrates it.
func TestAdminCommandLeavesOlderSchema(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	if _, stderr, code := runCLI(t, "token", "create", "--data", dir, "--subject", "ann", "--repos", "**"); code != 0 {
		t.Fatalf("token create = exit %d, stderr %s", code, stderr)
	}
	path := filepath.Join(dir, sqlite.FileName)
	older := sqlite.SchemaVersion - 1
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// The last step adds the table of identity bindings: the schema before it.
	if _, err := db.Exec("DROP TABLE identity_bindings; PRAGMA user_version = " + strconv.Itoa(older)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, args := range [][]string{
		{"token", "list", "--data", dir},
		{"token", "create", "--data", dir, "--subject", "bob", "--repos", "**"},
		{"admin", "purges", "--data", dir},
		{"migrate-store", "--from", dir, "--to", "postgres://127.0.0.1:1/never"},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != 1 || !strings.Contains(stderr, "teammemd serve --migrate-only --data "+dir) {
			t.Errorf("teammemd %s on an older schema = exit %d, stderr %q, want 1 and how to migrate it", strings.Join(args, " "), code, stderr)
		}
		if got := schemaVersion(t, path); got != older {
			t.Fatalf("schema version after teammemd %s = %d, want %d, left as it was", strings.Join(args, " "), got, older)
		}
	}
	if _, stderr, code := runCLI(t, "serve", "--migrate-only", "--data", dir); code != 0 {
		t.Fatalf("serve --migrate-only = exit %d, stderr %s", code, stderr)
	}
	if stdout, stderr, code := runCLI(t, "token", "list", "--data", dir); code != 0 || !strings.Contains(stdout, "ann") {
		t.Errorf("token list after serve --migrate-only = exit %d, %s%s, want ann's token", code, stdout, stderr)
	}
}

func schemaVersion(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
