package postgres

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// TestPersonalTablesMigrated opens a database of the schema before the
// personal lanes, with a repo: the migration keeps it, and the store takes
// a key and a lane write.
func TestPersonalTablesMigrated(t *testing.T) {
	before := slices.IndexFunc(migrations, func(m migration) bool { return strings.Contains(m.sql, "CREATE TABLE personal_keys") })
	if before < 0 { // before is also the schema version before the personal tables
		t.Fatal("no migration adds the personal tables")
	}
	db := pgtest.Schema(t)
	var steps []string
	for _, m := range migrations[:before] {
		steps = append(steps, m.sql)
	}
	pgtest.Exec(t, db, strings.Join(steps, ";\n")+`;
		CREATE TABLE teammemd_schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
		INSERT INTO teammemd_schema_migrations (version, name) SELECT g, 'step ' || g FROM generate_series(1, `+strconv.Itoa(before)+`) g;
		INSERT INTO repos (slug, version, last_modified, checksum) VALUES ('acme/app', 1, 1000, 'sha256:00')`)
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
