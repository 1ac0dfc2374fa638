package main

import (
	"context"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// TestMigrateStoreCopiesPersonalLanes copies a SQLite database with
// personal lanes into PostgreSQL twice: the keys, the lanes with their
// usage and their entries arrive, and the second run finds them up to date.
func TestMigrateStoreCopiesPersonalLanes(t *testing.T) {
	dir := t.TempDir()
	seedPersonal(t, dir)
	db := pgtest.Schema(t)
	for _, want := range []string{
		"personal lanes: 2 copied, 0 updated, 0 up to date, 0 diverged; keys: 2 copied, 0 already there",
		"personal lanes: 0 copied, 0 updated, 2 up to date, 0 diverged; keys: 0 copied, 2 already there",
	} {
		stdout, stderr, code := runCLI(t, "migrate-store", "--from", dir, "--to", db)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Fatalf("migrate-store = exit %d, stdout %q, stderr %q, want %q", code, stdout, stderr, want)
		}
	}
	ctx := context.Background()
	st, err := postgres.Open(ctx, db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lanes, err := st.Lanes(ctx, "alice")
	if err != nil || len(lanes) != 2 || lanes[0].Entries+lanes[1].Entries != 3 || lanes[0].Bytes+lanes[1].Bytes != int64(3*len(laneCiphertext)) {
		t.Errorf("Lanes(alice) in PostgreSQL = %+v, %v, want 2 lanes of 3 entries", lanes, err)
	}
	snap, err := st.Snapshot(ctx, store.PersonalRepo("alice", strings.Repeat("1", 32)), true)
	if err != nil || snap.Entries["k1.age"] != laneCiphertext {
		t.Errorf("Snapshot(alice's lane) in PostgreSQL = %v, %v, want its entries", snap.Entries, err)
	}
	if k, err := st.PersonalKey(ctx, "bob"); err != nil || k.KeyID != strings.Repeat("b", 32) {
		t.Errorf("PersonalKey(bob) in PostgreSQL = %+v, %v, want his key", k, err)
	}
	repos, err := st.Repos(ctx)
	if err != nil || len(repos) != 0 {
		t.Errorf("Repos() in PostgreSQL = %v, %v, want no team repo", repos, err)
	}
}
