package postgres

import (
	"testing"

	"github.com/teammemd/teammemd/server/store/storetest"
)

// TestRevisionClientMigrated opens a database of the schema before
// revisions kept their client, with history: the migration keeps every
// revision, each without a client, and new writes record theirs.
func TestRevisionClientMigrated(t *testing.T) {
	db := schemaBefore(t, "ADD COLUMN client", `INSERT INTO repos (id, slug, version, last_modified, checksum) OVERRIDING SYSTEM VALUE VALUES (1, 'acme/app', 1, 1000, 'sha256:00');
		INSERT INTO revisions (repo_id, key, version, checksum, subject, time, content) VALUES (1, 'a.md', 1, 'sha256:01', 'ann', 1000, 'A')`)
	storetest.WantClientlessRevision(t, openURL(t, db))
}
