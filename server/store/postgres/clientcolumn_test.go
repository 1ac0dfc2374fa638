package postgres

import (
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
	"github.com/teammemd/teammemd/server/store/storetest"
)

// TestRevisionClientMigrated opens a database of the schema before
// revisions kept their client, with history: the migration keeps every
// revision, each without a client, and new writes record theirs.
func TestRevisionClientMigrated(t *testing.T) {
	const before = 6 // the schema version before the client column
	if !strings.Contains(migrations[before].sql, "ADD COLUMN client") {
		t.Fatalf("migration %s does not add the client column", migrations[before].name)
	}
	db := pgtest.Schema(t)
	var steps []string
	for _, m := range migrations[:before] {
		steps = append(steps, m.sql)
	}
	pgtest.Exec(t, db, strings.Join(steps, ";\n")+`;
		CREATE TABLE teammemd_schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
		INSERT INTO teammemd_schema_migrations (version, name) SELECT g, 'step ' || g FROM generate_series(1, 6) g;
		INSERT INTO repos (id, slug, version, last_modified, checksum) OVERRIDING SYSTEM VALUE VALUES (1, 'acme/app', 1, 1000, 'sha256:00');
		INSERT INTO revisions (repo_id, key, version, checksum, subject, time, content) VALUES (1, 'a.md', 1, 'sha256:01', 'ann', 1000, 'A')`)
	storetest.WantClientlessRevision(t, openURL(t, db))
}
