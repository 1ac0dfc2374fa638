package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// TestIdentityBindingsAdded: a database of the schema before identity
// bindings opens with its repos and tokens intact, no subject bound, and
// binds one.
func TestIdentityBindingsAdded(t *testing.T) {
	s := openFromBefore(t, identityBindings,
		`INSERT INTO repos (id, slug, version, last_modified, checksum) VALUES (1, 'acme/app', 1, 1000, 'sha256:00');
		INSERT INTO tokens (id, subject, hash, grants, created_at) VALUES ('t1', 'ann', 'h1', '[]', 1000);`)
	ctx := context.Background()
	if repos, err := s.Repos(ctx); err != nil || len(repos) != 1 || repos[0] != "acme/app" {
		t.Errorf("Repos() after the upgrade = %v, %v, want acme/app", repos, err)
	}
	if tok, err := s.TokenByHash(ctx, "h1"); err != nil || tok.Subject != "ann" {
		t.Errorf("TokenByHash() after the upgrade = %+v, %v, want ann's token", tok, err)
	}
	if _, err := s.IdentityBinding(ctx, "github:alice"); !errors.Is(err, store.ErrBindingNotFound) {
		t.Errorf("IdentityBinding() after the upgrade error = %v, want ErrBindingNotFound", err)
	}
	want := store.IdentityBinding{Subject: "github:alice", AccountID: "1", BoundAt: time.Unix(0, 2000).UTC()}
	if got, err := s.BindIdentity(ctx, want); err != nil || got != want {
		t.Errorf("BindIdentity() after the upgrade = %+v, %v, want %+v", got, err, want)
	}
}
