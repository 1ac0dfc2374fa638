package main

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// TestMigrateStoreBindings copies the identity bindings, once however often
// it runs, and leaves a subject PostgreSQL bound to another account bound
// to it, saying so.
func TestMigrateStoreBindings(t *testing.T) {
	ctx := context.Background()
	dir, src := seededSource(t)
	for i, b := range []store.IdentityBinding{{Subject: "github:alice", AccountID: "1"}, {Subject: "github:bob", AccountID: "2"}} {
		b.BoundAt = migrateBase.Add(time.Duration(i) * time.Minute)
		if _, err := src.BindIdentity(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	db := pgtest.Database(t)
	migrate := func(wantCode int, want string) {
		t.Helper()
		stdout, stderr, code := runCLI(t, "migrate-store", "--from", dir, "--to", db)
		if code != wantCode || !strings.Contains(stdout+stderr, want) {
			t.Fatalf("migrate-store = exit %d\n%s%s\nwant exit %d and %q", code, stdout, stderr, wantCode, want)
		}
	}
	migrate(0, "identity bindings: 2 copied, 0 already there")
	migrate(0, "identity bindings: 0 copied, 2 already there")
	dst, err := postgres.Open(ctx, db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	want, err1 := src.ListIdentityBindings(ctx)
	got, err2 := dst.ListIdentityBindings(ctx)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("bindings in PostgreSQL = %+v, %v, want the SQLite ones %+v, %v", got, err2, want, err1)
	}

	for db, id := range map[store.IdentityBindings]string{src: "3", dst: "9"} {
		if _, err := db.BindIdentity(ctx, store.IdentityBinding{Subject: "github:carol", AccountID: id, BoundAt: migrateBase}); err != nil {
			t.Fatal(err)
		}
	}
	migrate(1, "github:carol is bound to account 3 in the source and to 9 in the destination; left as it is")
	if b, err := dst.IdentityBinding(ctx, "github:carol"); err != nil || b.AccountID != "9" {
		t.Errorf("github:carol in PostgreSQL after migrate-store = %+v, %v, want it left bound to 9", b, err)
	}
}
