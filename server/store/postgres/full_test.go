package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// Of the errors of class 53 (insufficient resources), disk_full alone is
// a full storage; the error stays PostgreSQL's, wrapped, either way.
func TestFullErrorIsDiskFullAlone(t *testing.T) {
	for _, tc := range []struct {
		code string
		full bool
	}{
		{"53100", true},  // disk_full
		{"53200", false}, // out_of_memory
		{"53400", false}, // configuration_limit_exceeded
		{"23505", false}, // unique_violation
	} {
		err := fullError(fmt.Errorf("apply write to acme/x: %w", &pgconn.PgError{Code: tc.code, Message: "refused"}))
		if got := errors.Is(err, store.ErrFull); got != tc.full {
			t.Errorf("errors.Is(fullError(SQLSTATE %s), store.ErrFull) = %v, want %v", tc.code, got, tc.full)
		}
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != tc.code {
			t.Errorf("fullError(SQLSTATE %s) = %v; want it to wrap PostgreSQL's error", tc.code, err)
		}
	}
	if err := fullError(nil); err != nil {
		t.Errorf("fullError(nil) = %v, want nil", err)
	}
}

// A write PostgreSQL refuses with disk_full is a store.ErrFull from every
// kind of write, and leaves nothing behind; StorageFull says so until a
// write succeeds once there is room, and what was there is still there.
func TestDiskFullRefusesWrites(t *testing.T) {
	dbURL := pgtest.Schema(t)
	s := openURL(t, dbURL)
	ctx := context.Background()
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	before, err := s.Apply(ctx, store.Write{Repo: "acme/full", Entries: map[string]string{"kept.md": "before"}, Subject: "ann", Time: at})
	if err != nil {
		t.Fatal(err)
	}
	room := pgtest.DiskFull(t, dbURL, "revisions", "tokens")

	_, err = s.Apply(ctx, store.Write{Repo: "acme/full", Entries: map[string]string{"new.md": "refused"}, Subject: "ann", Time: at})
	var pgErr *pgconn.PgError
	if !errors.Is(err, store.ErrFull) || !errors.As(err, &pgErr) || pgErr.Code != codeDiskFull {
		t.Fatalf("Apply() on a full disk error = %v; want store.ErrFull around SQLSTATE 53100", err)
	}
	if _, err := s.StorageFull(); !errors.Is(err, store.ErrFull) {
		t.Errorf("StorageFull() after the refusal = %v; want the refusal", err)
	}
	err = s.CreateToken(ctx, store.Token{ID: "t1", Subject: "ann", Hash: "h1", CreatedAt: at})
	if !errors.Is(err, store.ErrFull) {
		t.Errorf("CreateToken() on a full disk error = %v; want store.ErrFull", err)
	}
	snap, err := s.Snapshot(ctx, "acme/full", true)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Version != before.Version || len(snap.Entries) != 1 {
		t.Fatalf("after the refusal the repo is at version %d with %d entries; want %d with 1", snap.Version, len(snap.Entries), before.Version)
	}

	room()
	if _, err := s.Apply(ctx, store.Write{Repo: "acme/full", Entries: map[string]string{"new.md": "stored"}, Subject: "ann", Time: at}); err != nil {
		t.Fatalf("Apply() once there is room error = %v", err)
	}
	if full, err := s.StorageFull(); err != nil || !full.IsZero() {
		t.Errorf("StorageFull() after a write succeeded = %v, %v; want zero, nil", full, err)
	}
	snap, err = s.Snapshot(ctx, "acme/full", true)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Entries["kept.md"] != "before" || snap.Entries["new.md"] != "stored" {
		t.Errorf("after room came back the repo holds %v; want kept.md and new.md", snap.Entries)
	}
}
