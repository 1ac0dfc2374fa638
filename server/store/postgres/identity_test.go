package postgres

import (
	"context"
	"testing"

	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

func storeID(t *testing.T, s *Store) string {
	t.Helper()
	id, err := s.StoreID(context.Background())
	if err != nil {
		t.Fatalf("StoreID() error = %v", err)
	}
	return id
}

// TestStoreID gives a database one identity, the same through every
// replica, another database another one, and NewStoreID a fresh one that
// every replica then reads.
func TestStoreID(t *testing.T) {
	db := pgtest.Database(t)
	one, two := openURL(t, db), openURL(t, db)
	id := storeID(t, one)
	if len(id) != 32 {
		t.Errorf("StoreID() = %q, want 32 hex digits", id)
	}
	if got := storeID(t, two); got != id {
		t.Errorf("StoreID(second replica) = %q, want %q", got, id)
	}
	if other := storeID(t, openTemp(t)); other == id {
		t.Errorf("StoreID(another database) = %q, the same as the first", other)
	}
	fresh, err := one.NewStoreID(context.Background())
	if err != nil {
		t.Fatalf("NewStoreID() error = %v", err)
	}
	if fresh == id || len(fresh) != 32 {
		t.Errorf("NewStoreID() = %q, want 32 hex digits other than %q", fresh, id)
	}
	if got := storeID(t, two); got != fresh {
		t.Errorf("StoreID(second replica) after NewStoreID = %q, want %q", got, fresh)
	}
}

// TestStoreIDMigrated opens a database made by a teammemd without
// identities (schema version 1, with a repo): the migration gives it one
// and keeps its data.
func TestStoreIDMigrated(t *testing.T) {
	db := pgtest.Schema(t)
	pgtest.Exec(t, db, migrations[0].sql+`;
		CREATE TABLE teammemd_schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
		INSERT INTO teammemd_schema_migrations (version, name) VALUES (1, '0001_initial.sql');
		INSERT INTO repos (slug, version, last_modified, checksum) VALUES ('acme/app', 7, 0, 'x')`)
	s := openURL(t, db)
	if id := storeID(t, s); len(id) != 32 {
		t.Errorf("StoreID() after migrating from version 1 = %q, want 32 hex digits", id)
	}
	repos, err := s.Repos(context.Background())
	if err != nil || len(repos) != 1 || repos[0] != "acme/app" {
		t.Errorf("Repos() after migrating = %v, %v, want [acme/app]", repos, err)
	}
}
