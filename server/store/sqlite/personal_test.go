package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// TestPersonalTablesAdded: a database of the schema before the personal
// lanes opens with its repos intact, and takes a key and a lane write.
func TestPersonalTablesAdded(t *testing.T) {
	s := openFromBefore(t, personalSchema,
		`INSERT INTO repos (id, slug, version, last_modified, checksum) VALUES (1, 'acme/app', 1, 1000, 'sha256:00');`)
	ctx := context.Background()
	if repos, err := s.Repos(ctx); err != nil || len(repos) != 1 || repos[0] != "acme/app" {
		t.Errorf("Repos() after the upgrade = %v, %v, want acme/app", repos, err)
	}
	key := strings.Repeat("a", 32)
	if _, err := s.PutPersonalKey(ctx, store.PersonalKey{Subject: "ann", KeyID: key, Envelope: "e"}, ""); err != nil {
		t.Fatal(err)
	}
	w := store.Write{Repo: store.PersonalRepo("ann", strings.Repeat("1", 32)), Subject: "ann",
		Entries: map[string]string{"k": "v"}, Lane: &store.LaneWrite{KeyID: key}}
	if _, err := s.Apply(ctx, w); err != nil {
		t.Errorf("Apply(lane write) after the upgrade error = %v", err)
	}
}
