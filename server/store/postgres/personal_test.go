package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// TestPersonalTablesMigrated opens a database of the schema before the
// personal lanes, with a repo: the migration keeps it, and the store takes
// a key and a lane write.
func TestPersonalTablesMigrated(t *testing.T) {
	db := schemaBefore(t, "CREATE TABLE personal_keys", `INSERT INTO repos (slug, version, last_modified, checksum) VALUES ('acme/app', 1, 1000, 'sha256:00')`)
	s := openURL(t, db)
	ctx := context.Background()
	if repos, err := s.Repos(ctx); err != nil || len(repos) != 1 || repos[0] != "acme/app" {
		t.Errorf("Repos() after the migration = %v, %v, want acme/app", repos, err)
	}
	key := strings.Repeat("a", 32)
	if _, err := s.PutPersonalKey(ctx, store.PersonalKey{Subject: "ann", KeyID: key, Envelope: "e"}, ""); err != nil {
		t.Fatal(err)
	}
	w := store.Write{Repo: store.PersonalRepo("ann", strings.Repeat("1", 32)), Subject: "ann",
		Entries: map[string]string{"k": "v"}, Lane: &store.LaneWrite{KeyID: key}}
	if _, err := s.Apply(ctx, w); err != nil {
		t.Errorf("Apply(lane write) after the migration error = %v", err)
	}
}
