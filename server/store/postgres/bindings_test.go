package postgres

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// TestIdentityBindingsMigrated opens a database of the schema before
// identity bindings, with a repo and a token: the migration keeps them,
// binds no subject, and the store binds one.
func TestIdentityBindingsMigrated(t *testing.T) {
	before := slices.IndexFunc(migrations, func(m migration) bool { return strings.Contains(m.sql, "CREATE TABLE identity_bindings") })
	if before < 0 { // before is also the schema version before the bindings
		t.Fatal("no migration adds the identity bindings")
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
		INSERT INTO repos (slug, version, last_modified, checksum) VALUES ('acme/app', 1, 1000, 'sha256:00');
		INSERT INTO tokens (id, subject, hash, grants, created_at) VALUES ('t1', 'ann', 'h1', '[]', 1000)`)
	s := openURL(t, db)
	ctx := context.Background()
	if repos, err := s.Repos(ctx); err != nil || len(repos) != 1 || repos[0] != "acme/app" {
		t.Errorf("Repos() after the migration = %v, %v, want acme/app", repos, err)
	}
	if tok, err := s.TokenByHash(ctx, "h1"); err != nil || tok.Subject != "ann" {
		t.Errorf("TokenByHash() after the migration = %+v, %v, want ann's token", tok, err)
	}
	if _, err := s.IdentityBinding(ctx, "github:alice"); !errors.Is(err, store.ErrBindingNotFound) {
		t.Errorf("IdentityBinding() after the migration error = %v, want ErrBindingNotFound", err)
	}
	want := store.IdentityBinding{Subject: "github:alice", AccountID: "1", BoundAt: time.Unix(0, 2000).UTC()}
	if got, err := s.BindIdentity(ctx, want); err != nil || got != want {
		t.Errorf("BindIdentity() after the migration = %+v, %v, want %+v", got, err, want)
	}
}
