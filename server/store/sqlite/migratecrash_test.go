package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/proclab/labtest"
)

// migrateChildEnv names the database a child process of this test binary
// opens, and so migrates, before it exits.
const migrateChildEnv = "TEAMMEMD_TEST_MIGRATE_CHILD"

// Migration crash bounds: CI kills the migration this many times; long
// runs set TEAMMEMD_MIGRATION_KILLS (e.g. 20).
const (
	ciMigrationKills  = 3
	crashRevisions    = 10_000 // of 4 KB: a 40 MB history to rebuild
	crashEntries      = 1_000
	crashMigrateLimit = 2 * time.Minute
)

// TestMigrationCrashChild is the child process TestMigrationCrash starts
// and kills; run on its own, it does nothing.
func TestMigrationCrashChild(t *testing.T) {
	path := os.Getenv(migrateChildEnv)
	if path == "" {
		t.Skip("only a child of TestMigrationCrash")
	}
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMigrationCrash kills a process with SIGKILL while it moves a 40 MB
// history to the rowid tables, again and again at random moments from the
// start of the process to past the time a whole migration takes, then
// lets one finish. After each kill the file must pass SQLite's integrity
// check and hold one schema or the other, never a mix; at the end every
// entry and revision must be as it was, byte for byte.
func TestMigrationCrash(t *testing.T) {
	kills := labtest.EnvCount(t, "TEAMMEMD_MIGRATION_KILLS", ciMigrationKills)
	path := filepath.Join(t.TempDir(), FileName)
	before := slices.Index(migrations, rowidTables)
	rawExec(t, path, strings.Join(migrations[:before], ";\n")+fmt.Sprintf(`;
		PRAGMA journal_mode = WAL; PRAGMA user_version = %d; PRAGMA application_id = %d;
		INSERT INTO repos (id, slug, version, last_modified, checksum) VALUES (1, 'acme/app', %d, 1000, 'sha256:00');
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < %d)
		INSERT INTO revisions (repo_id, key, version, checksum, subject, time, content, client)
			SELECT 1, 'notes/k' || (i %% %d) || '.md', i, 'sha256:' || i, 'ann', i * 1000,
				CAST(substr(replace(hex(zeroblob(1024)), '00', printf('%%-8d', i)), 1, 4096) AS BLOB),
				CASE WHEN i %% 3 = 0 THEN 'token t' || i ELSE '' END FROM n;
		INSERT INTO entries (repo_id, key, checksum, value, deleted_at)
			SELECT repo_id, key, checksum, CASE WHEN version %% 7 = 0 THEN NULL ELSE content END,
				CASE WHEN version %% 7 = 0 THEN version ELSE NULL END
			FROM revisions WHERE version > %d;`,
		before, applicationID, crashRevisions, crashRevisions, crashEntries, crashRevisions-crashEntries))
	want := tablesDigest(t, path)
	pristine, full := timeMigration(t, path)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	migrated := 0
	for kill := range kills {
		if killMigration(t, path, full/20+time.Duration(rng.Int64N(int64(full)*23/20))) {
			migrated++
		}
		if checkAfterKill(t, path) == SchemaVersion { // committed before the kill
			if tablesDigest(t, path) != want {
				t.Fatalf("kill %d: the migrated tables differ from the old ones", kill+1)
			}
			resetDatabase(t, path, pristine)
		}
	}
	if !killMigration(t, path, crashMigrateLimit) {
		t.Fatalf("the migration did not finish within %v", crashMigrateLimit)
	}
	if v := checkAfterKill(t, path); v != SchemaVersion || tablesDigest(t, path) != want {
		t.Fatalf("after the last run: schema %d, tables as before: %v", v, tablesDigest(t, path) == want)
	}
	t.Logf("%d kills during the migration of %d revisions and %d entries, which takes %v (%d ran to the end first); then migrated, every row as it was",
		kills, crashRevisions, crashEntries, full.Round(time.Millisecond), migrated)
}

// timeMigration migrates a copy of the database at path in a child and
// returns the file as it was and how long the child ran, so that the kills
// can fall anywhere in a migration, up to and past its commit.
func timeMigration(t *testing.T, path string) ([]byte, time.Duration) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(clone, data, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if !killMigration(t, clone, crashMigrateLimit) {
		t.Fatalf("the migration did not finish within %v", crashMigrateLimit)
	}
	return data, time.Since(start)
}

// resetDatabase puts the database at path back to data, a closed
// database's file, without its write-ahead log.
func resetDatabase(t *testing.T, path string, data []byte) {
	t.Helper()
	for _, f := range []string{path + "-wal", path + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// killMigration runs a child that opens path, so migrates it, and kills it
// after d unless it ended first. It reports whether the child ran to the
// end, also when it did so as the kill came (the kill then finds it gone).
func killMigration(t *testing.T, path string, d time.Duration) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestMigrationCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), migrateChildEnv+"="+path)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("the migrating child failed: %v\n%s", err, out)
		}
		return true
	case <-time.After(d):
		if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatal(err)
		}
		if err := <-ended; err == nil {
			return true // it ran to the end as the kill came
		}
		return false
	}
}

// checkAfterKill runs SQLite's integrity check on path and returns its
// schema version, which must be the old one or the new one.
func checkAfterKill(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity check = %q, %v", check, err)
	}
	var version int
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if before := slices.Index(migrations, rowidTables); version != before && version != SchemaVersion {
		t.Fatalf("schema version %d, want %d or %d", version, before, SchemaVersion)
	}
	return version
}

// tablesDigest hashes every entry and revision at path, column by column,
// in key order.
func tablesDigest(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h := sha256.New()
	for _, q := range []string{
		"SELECT repo_id, key, checksum, value, deleted_at FROM entries ORDER BY repo_id, key",
		"SELECT repo_id, key, version, checksum, subject, time, client, content FROM revisions ORDER BY repo_id, key, version",
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		n := 0
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				hashValue(h, v)
			}
			n++
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "rows %d\n", n)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hashValue writes v to h with its type and, for bytes and text, its
// length first, so that no two rows write the same bytes.
func hashValue(h io.Writer, v any) {
	switch v := v.(type) {
	case []byte:
		fmt.Fprintf(h, "b%d:", len(v))
		h.Write(v)
	case string:
		fmt.Fprintf(h, "s%d:%s", len(v), v)
	default:
		fmt.Fprintf(h, "%T:%v;", v, v)
	}
}
