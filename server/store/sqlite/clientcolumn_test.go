package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// TestRevisionClientColumnAdded: a database of the schema before revisions
// kept their client opens with its history intact, each old revision
// without a client.
func TestRevisionClientColumnAdded(t *testing.T) {
	const before = 5 // the schema version before the client column
	if !strings.Contains(migrations[before], "ADD COLUMN client") {
		t.Fatalf("migrations[%d] = %q, want the client column", before, migrations[before])
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
	if err != nil {
		t.Fatalf("Open(schema %d) error = %v", before, err)
	}
	defer s.Close()
	revs, err := store.ListHistory(context.Background(), s, store.HistoryQuery{Repo: "acme/app"})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != 1 || revs[0].Subject != "ann" || revs[0].Client != "" || revs[0].Content == nil || *revs[0].Content != "A" {
		t.Errorf("history after the upgrade = %+v, want ann's revision with content A and no client", revs)
	}
}
