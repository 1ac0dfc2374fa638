package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres"
)

// TestMigrateStoreDivergedPurge: a purge made in the SQLite database of a
// repo written in PostgreSQL since the copy is not copied, and the output
// says that PostgreSQL may still hold the content it dropped, with the
// purge to run there, since that content may be a leaked secret.
func TestMigrateStoreDivergedPurge(t *testing.T) {
	ctx := context.Background()
	dir, src, db := copiedWithLeak(t)
	dst, err := postgres.Open(ctx, db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := dst.Apply(ctx, store.Write{Repo: "acme/app", Entries: map[string]string{"pg.md": "on PostgreSQL"}, Subject: "carl", Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	p := store.Purge{Repo: "acme/app", Key: "MEMORY.md", Versions: []int64{5}, Actor: "root", Reason: "leak", Time: migrateBase.Add(time.Hour)}
	if _, err := src.Purge(ctx, p); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "migrate-store", "--from", dir, "--to", db)
	want := "teammemd admin purge --store URL --repo acme/app --key MEMORY.md --version 5"
	if code != 1 || !strings.Contains(stderr, "2026-03-01T10:00:00Z") || !strings.Contains(stderr, want) {
		t.Errorf("migrate-store after a purge of a diverged repo = exit %d\n%s%s\nwant exit 1, the purge's time and %q", code, stdout, stderr, want)
	}
}
