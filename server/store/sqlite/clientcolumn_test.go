package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store/storetest"
)

// TestRevisionClientColumnAdded: a database of the schema before revisions
// kept their client opens with its history intact, each old revision
// without a client.
func TestRevisionClientColumnAdded(t *testing.T) {
	before := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "ADD COLUMN client") })
	if before < 0 {
		t.Fatal("no migration adds the client column")
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	rawExec(t, path, strings.Join(migrations[:before], ";\n")+fmt.Sprintf(`;
		PRAGMA user_version = %d; PRAGMA application_id = %d;
		INSERT INTO repos (id, slug, version, last_modified, checksum) VALUES (1, 'acme/app', 1, 1000, 'sha256:00');
		INSERT INTO revisions (repo_id, key, version, checksum, subject, time, content) VALUES (1, 'a.md', 1, 'sha256:01', 'ann', 1000, 'A');`,
		before, applicationID))
	s, err := Open(context.Background(), path, Options{})
	storetest.WantClientlessRevision(t, storetest.CloseAtEnd(t, s, err))
}
