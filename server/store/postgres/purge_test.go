package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// TestPurgeLiveWakesReplicas purges the live revision of a key through one
// replica: the deletion it makes wakes a change wait held by another
// replica's waker, as any write does, so daemons pull the deletion.
func TestPurgeLiveWakesReplicas(t *testing.T) {
	db := pgtest.Database(t)
	one, two := openURL(t, db), openURL(t, db)
	write(t, one, "acme/app", "a.md", "leaked")
	w := two.NewWaker(WakerOptions{CheckEvery: time.Hour})
	first, release := w.Subscribe("acme/app")
	runWaker(t, w)
	awaitWake(t, first, "first check")
	release()
	changed, release := w.Subscribe("acme/app")
	defer release()
	awaitUp(t, w)
	r, err := one.Purge(context.Background(), store.Purge{Repo: "acme/app", Key: "a.md", IncludeLive: true, Actor: "root"})
	if err != nil {
		t.Fatalf("Purge(live) error = %v", err)
	}
	if r.Deletion.Version != 2 {
		t.Errorf("Purge(live).Deletion.Version = %d, want 2", r.Deletion.Version)
	}
	awaitWake(t, changed, "purge of the live revision through the other replica")
}

// TestPurgeResidue says, for every purge that dropped content, where
// PostgreSQL may still hold it and how to rewrite the table; a purge of
// nothing says nothing.
func TestPurgeResidue(t *testing.T) {
	s := openTemp(t)
	write(t, s, "acme/app", "a.md", "one")
	write(t, s, "acme/app", "a.md", "two")
	ctx := context.Background()
	p := store.Purge{Repo: "acme/app", Key: "a.md", Versions: []int64{1}, Actor: "root"}
	r, err := s.Purge(ctx, p)
	if err != nil {
		t.Fatalf("Purge(v1) error = %v", err)
	}
	if !strings.Contains(r.Residue, VacuumPurged) {
		t.Errorf("Purge(v1).Residue = %q, want it to name %s", r.Residue, VacuumPurged)
	}
	if r, err = s.Purge(ctx, p); err != nil || r.Residue != "" {
		t.Errorf("Purge(v1 again) = %+v, %v, want nothing purged and no residue", r, err)
	}
}
