package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/storetest"
)

// TestRowidTablesMigrated: a database of the schema with WITHOUT ROWID
// entries and revisions opens with every entry, tombstone and revision as
// it was, pruned content and clients included, and takes writes after.
func TestRowidTablesMigrated(t *testing.T) {
	s := openFromBefore(t, rowidTables, `INSERT INTO repos (id, slug, version, last_modified, checksum) VALUES (1, 'acme/app', 4, 4000, 'sha256:00');
		INSERT INTO entries (repo_id, key, checksum, value, deleted_at) VALUES
			(1, 'a.md', 'sha256:a2', CAST('A2' AS BLOB), NULL), (1, 'b.md', NULL, NULL, 4);
		INSERT INTO revisions (repo_id, key, version, checksum, subject, time, content, client) VALUES
			(1, 'a.md', 1, 'sha256:a1', 'ann', 1000, CAST('A1' AS BLOB), 'token t1'),
			(1, 'b.md', 2, 'sha256:b1', 'bob', 2000, NULL, ''),
			(1, 'a.md', 3, 'sha256:a2', 'ann', 3000, CAST('A2' AS BLOB), 'token t1'),
			(1, 'b.md', 4, NULL, 'bob', 4000, NULL, '');`)
	ctx := context.Background()
	snap, err := s.Snapshot(ctx, "acme/app", true)
	if err != nil || snap.Version != 4 || snap.Entries["a.md"] != "A2" || len(snap.Entries) != 1 || snap.Deleted["b.md"] != 4 {
		t.Errorf("Snapshot after the upgrade = %+v, %v, want a.md = A2 and b.md deleted at 4", snap, err)
	}
	var got []string
	err = s.History(ctx, store.HistoryQuery{Repo: "acme/app"}, func(r store.Revision) error {
		content := "-"
		if r.Content != nil {
			content = *r.Content
		}
		got = append(got, fmt.Sprintf("%s@%d %s %s %q %s", r.Key, r.Version, r.Subject, r.Checksum, r.Client, content))
		return nil
	})
	slices.Sort(got)
	want := []string{
		`a.md@1 ann sha256:a1 "token t1" A1`, `a.md@3 ann sha256:a2 "token t1" A2`,
		`b.md@2 bob sha256:b1 "" -`, `b.md@4 bob  "" -`,
	}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("History after the upgrade = %q, %v, want %q", got, err, want)
	}
	if _, err := s.Apply(ctx, store.Write{Repo: "acme/app", Entries: map[string]string{"b.md": "B2"}, Subject: "bob"}); err != nil {
		t.Errorf("Apply after the upgrade: %v", err)
	}
}

// TestValuesLastInRowidTables: entries and revisions are rowid tables whose
// value is the last column, so neither a key's search nor a read of the
// columns before the value walks its overflow pages.
func TestValuesLastInRowidTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s := mustOpen(t, path)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for table, last := range map[string]string{"entries": "value", "revisions": "content"} {
		var ddl string
		if err := db.QueryRow("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", table).Scan(&ddl); err != nil {
			t.Fatalf("read %s's schema: %v", table, err)
		}
		if strings.Contains(strings.ToUpper(ddl), "WITHOUT ROWID") {
			t.Errorf("%s is a WITHOUT ROWID table:\n%s", table, ddl)
		}
		if cols := tableColumns(t, db, table); len(cols) == 0 || cols[len(cols)-1] != last {
			t.Errorf("%s's columns = %v, want %s last", table, cols, last)
		}
	}
}

// tableColumns lists table's columns in their order.
func tableColumns(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query("SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols
}

// TestMigrationLogged: a migration of an existing database says so before
// it starts, from which version to which, and when it is done; a new
// database says nothing of it.
func TestMigrationLogged(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	openFromBeforeWith(t, rowidTables, "", Options{Logger: log})
	before := slices.Index(migrations, rowidTables)
	for _, msg := range []string{"migrating database schema", "database schema migrated"} {
		want := fmt.Sprintf(`"msg":%q,"store":`, msg)
		if !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), fmt.Sprintf(`"from":%d,"to":%d`, before, SchemaVersion)) {
			t.Errorf("logs = %s, want %s with from %d to %d", logs.String(), msg, before, SchemaVersion)
		}
	}
	logs.Reset()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), FileName), Options{Logger: log})
	storetest.CloseAtEnd(t, s, err)
	if strings.Contains(logs.String(), "migrat") {
		t.Errorf("a new database logged %s", logs.String())
	}
}
