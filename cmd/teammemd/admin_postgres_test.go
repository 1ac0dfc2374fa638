package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// seedLeakPostgres writes what seedLeak does into the PostgreSQL database
// at db.
func seedLeakPostgres(t *testing.T, db string) {
	t.Helper()
	st, err := postgres.Open(context.Background(), db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for i, w := range []store.Write{
		{Entries: map[string]string{"a.md": "notes\n" + leakedSecret + "\n"}},
		{Entries: map[string]string{"a.md": "notes\n"}},
		{Entries: map[string]string{"b.md": "other"}},
	} {
		w.Repo, w.Subject, w.Time = "acme/app", "ann", at.Add(time.Duration(i)*time.Second)
		if _, err := st.Apply(context.Background(), w); err != nil {
			t.Fatal(err)
		}
	}
}

func pgStoreID(t *testing.T, db string) string {
	t.Helper()
	st, err := postgres.Open(context.Background(), db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.StoreID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func sqliteStoreID(t *testing.T, dir string) string {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.StoreID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestAdminOnPostgres purges a leaked revision in a PostgreSQL database
// named by --store, lists the history and the audit log there, and gives
// the database a new identity; no output shows the password.
func TestAdminOnPostgres(t *testing.T) {
	isolateConfig(t)
	db, pw := withPassword(t, pgtest.Schema(t))
	seedLeakPostgres(t, db)
	idBefore := pgStoreID(t, db)
	run := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := runCLI(t, append(args, "--store", db)...)
		if code != 0 {
			t.Fatalf("teammemd %s = exit %d, stderr %q, want 0", strings.Join(args, " "), code, stderr)
		}
		if strings.Contains(stdout+stderr, pw) || strings.Contains(stdout+stderr, "hunter2") {
			t.Errorf("teammemd %s output shows the password or the purged content:\n%s%s", strings.Join(args, " "), stdout, stderr)
		}
		return stdout + stderr
	}
	out := run("admin", "purge", "--repo", "acme/app", "--key", "a.md", "--version", "1", "--actor", "alice", "--reason", "leaked password")
	for _, want := range []string{"purged the content of revision 1 of a.md in acme/app", "warning:", postgres.VacuumPurged} {
		if !strings.Contains(out, want) {
			t.Errorf("admin purge --store output = %q, want it to contain %q", out, want)
		}
	}
	hist := strings.Split(strings.TrimSpace(run("admin", "history", "--repo", "acme/app", "--key", "a.md")), "\n")
	if len(hist) != 3 || !strings.Contains(hist[1], "6 bytes") || !strings.Contains(hist[2], "purged") {
		t.Errorf("admin history --store = %q, want version 2 with 6 bytes, then version 1 purged", hist)
	}
	recs := strings.Split(strings.TrimSpace(run("admin", "purges")), "\n")
	if len(recs) != 2 || !strings.Contains(recs[1], "alice") || !strings.Contains(recs[1], "leaked password") {
		t.Errorf("admin purges --store = %q, want a header and alice's record", recs)
	}
	out = run("admin", "new-store-id")
	idAfter := pgStoreID(t, db)
	if idAfter == idBefore || !strings.Contains(out, "new store identity "+idAfter) {
		t.Errorf("admin new-store-id --store said %q; identity %s before, %s after, want a new one named", out, idBefore, idAfter)
	}
}

// TestAdminNewStoreIDSQLite gives a SQLite database a new identity.
func TestAdminNewStoreIDSQLite(t *testing.T) {
	dir := t.TempDir()
	seedLeak(t, dir)
	before := sqliteStoreID(t, dir)
	stdout, stderr, code := runCLI(t, "admin", "new-store-id", "--data", dir)
	after := sqliteStoreID(t, dir)
	if code != 0 || after == before || !strings.Contains(stdout, "new store identity "+after) {
		t.Errorf("admin new-store-id --data = exit %d, stdout %q, stderr %q; identity %s before, %s after, want a new one named",
			code, stdout, stderr, before, after)
	}
}

// pgTool finds a PostgreSQL client program, or skips the test without it
// (fails when the PostgreSQL tests are required).
func pgTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv(pgtest.RequireEnv) == "1" {
			t.Fatalf("%s not found, and %s=1: %v", name, pgtest.RequireEnv, err)
		}
		t.Skipf("%s not found: %v; install the PostgreSQL client tools (.ci/run does) to run this test", name, err)
	}
	return path
}

// backupChapter gives the steps TestPostgresBackupRestore runs.
var backupChapter = filepath.Join("..", "..", "docs", "07-backup-restore.md")

// The PostgreSQL steps of backupChapter, each up to its file and database
// arguments: TestPostgresBackupRestore runs them, and
// TestBackupChapterGivesThePostgresSteps checks that the chapter gives them.
var (
	pgDumpStep     = []string{"pg_dump", "--format=custom", "--file"}
	pgRestoreStep  = []string{"pg_restore", "--no-owner", "--exit-on-error", "--dbname"}
	newStoreIDStep = []string{"teammemd", "admin", "new-store-id", "--store"}
)

// The backup chapter gives the steps TestPostgresBackupRestore runs. This
// test needs no PostgreSQL, so the chapter is checked on every run.
func TestBackupChapterGivesThePostgresSteps(t *testing.T) {
	data, err := os.ReadFile(backupChapter)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(data)), " ")
	for _, step := range [][]string{pgDumpStep, pgRestoreStep, newStoreIDStep} {
		if line := strings.Join(step, " "); !strings.Contains(text, line) {
			t.Errorf("%s does not give the step %s", backupChapter, line)
		}
	}
}

// TestPostgresBackupRestore follows the backup and restore of a PostgreSQL
// database that docs/07-backup-restore.md gives: pg_dump, pg_restore into
// an empty database, then "teammemd admin new-store-id". The restored
// database holds what the backup held, takes writes, and names a new
// identity.
func TestPostgresBackupRestore(t *testing.T) {
	isolateConfig(t)
	src := pgtest.Database(t)
	seedLeakPostgres(t, src)
	dump := filepath.Join(t.TempDir(), "teammemd.dump")
	if out, err := exec.Command(pgTool(t, pgDumpStep[0]), slices.Concat(pgDumpStep[1:], []string{dump, src})...).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}
	ctx := context.Background()
	st, err := postgres.Open(ctx, src, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Apply(ctx, store.Write{Repo: "acme/app", Entries: map[string]string{"late.md": "after the backup"}, Subject: "ann"}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	dst := pgtest.Database(t)
	if out, err := exec.Command(pgTool(t, pgRestoreStep[0]), slices.Concat(pgRestoreStep[1:], []string{dst, dump})...).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, out)
	}
	if got, want := pgStoreID(t, dst), pgStoreID(t, src); got != want {
		t.Fatalf("restored identity = %s, want the backup's %s before new-store-id", got, want)
	}
	if _, stderr, code := runCLI(t, slices.Concat(newStoreIDStep[1:], []string{dst})...); code != 0 {
		t.Fatalf("admin new-store-id: exit %d, %s", code, stderr)
	}
	if got := pgStoreID(t, dst); got == pgStoreID(t, src) {
		t.Errorf("identity after new-store-id = %s, the backup's; want a new one", got)
	}
	st, err = postgres.Open(ctx, dst, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Apply(ctx, store.Write{Repo: "acme/app", Entries: map[string]string{"c.md": "c"}, Subject: "ann"}); err != nil {
		t.Fatalf("write to the restored database: %v", err)
	}
	snap, err := st.Snapshot(ctx, "acme/app", true)
	if err != nil || snap.Version != 4 || snap.Entries["late.md"] != "" || snap.Entries["a.md"] != "notes\n" {
		t.Errorf("restored repo = v%d %v, %v; want the backup's three versions, then c.md at 4", snap.Version, snap.Entries, err)
	}
}
