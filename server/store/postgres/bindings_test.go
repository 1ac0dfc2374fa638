package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// TestIdentityBindingsMigrated opens a database of the schema before
// identity bindings, with a repo and a token: the migration keeps them,
// binds no subject, and the store binds one.
func TestIdentityBindingsMigrated(t *testing.T) {
	db := schemaBefore(t, "CREATE TABLE identity_bindings", `INSERT INTO repos (slug, version, last_modified, checksum) VALUES ('acme/app', 1, 1000, 'sha256:00');
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
