package sqlite

import (
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store/storetest"
)

// TestRevisionClientColumnAdded: a database of the schema before revisions
// kept their client opens with its history intact, each old revision
// without a client.
func TestRevisionClientColumnAdded(t *testing.T) {
	i := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "ADD COLUMN client") })
	if i < 0 {
		t.Fatal("no migration adds the client column")
	}
	s := openFromBefore(t, migrations[i], `INSERT INTO repos (id, slug, version, last_modified, checksum) VALUES (1, 'acme/app', 1, 1000, 'sha256:00');
		INSERT INTO revisions (repo_id, key, version, checksum, subject, time, content) VALUES (1, 'a.md', 1, 'sha256:01', 'ann', 1000, 'A');`)
	storetest.WantClientlessRevision(t, s)
}
