package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	msqlite "modernc.org/sqlite"

	"github.com/teammemd/teammemd/server/store"
)

// fill writes with write, numbered from 0, until one is refused, and
// returns the refusal and how many were written before it.
func fill(t *testing.T, write func(i int) error) (int, error) {
	t.Helper()
	for i := range 2000 {
		if err := write(i); err != nil {
			return i, err
		}
	}
	t.Fatal("2000 writes fitted under the page cap")
	return 0, nil
}

// A repo write SQLite has no room for is refused with store.ErrFull,
// around SQLite's own error, and leaves nothing behind; StorageFull says
// so until a write succeeds once there is room again, and every write
// made before the refusal is still there.
func TestFullDatabaseRefusesRepoWrites(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	mustApply(t, s, store.Write{Repo: "acme/full", Entries: map[string]string{"kept.md": "before the disk filled"}})
	if at, err := s.StorageFull(); err != nil || !at.IsZero() {
		t.Fatalf("StorageFull() before any refusal = %v, %v; want zero, nil", at, err)
	}
	pages, err := s.LimitPages(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	value := strings.Repeat("x", 6000)
	written, refusal := fill(t, func(i int) error {
		_, err := s.Apply(ctx, store.Write{Repo: "acme/full", Entries: map[string]string{fmt.Sprintf("n%d.md", i): value}, Time: t0})
		return err
	})
	var sqliteErr *msqlite.Error
	if !errors.Is(refusal, store.ErrFull) || !errors.As(refusal, &sqliteErr) {
		t.Fatalf("Apply() past the page cap error = %v; want store.ErrFull around SQLite's error", refusal)
	}
	if _, err := s.StorageFull(); !errors.Is(err, store.ErrFull) {
		t.Errorf("StorageFull() after the refusal = %v; want the refusal", err)
	}
	snap, err := s.Snapshot(ctx, "acme/full", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.Entries[fmt.Sprintf("n%d.md", written)]; ok || len(snap.Entries) != written+1 {
		t.Fatalf("after the refusal the repo holds %d entries (refused one there: %v); want %d, without it", len(snap.Entries), ok, written+1)
	}

	if _, err := s.LimitPages(ctx, pages+10000); err != nil {
		t.Fatal(err)
	}
	mustApply(t, s, store.Write{Repo: "acme/full", Entries: map[string]string{fmt.Sprintf("n%d.md", written): value}})
	if at, err := s.StorageFull(); err != nil || !at.IsZero() {
		t.Errorf("StorageFull() after a write succeeded = %v, %v; want zero, nil", at, err)
	}
	snap, err = s.Snapshot(ctx, "acme/full", true)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Entries["kept.md"]; got != "before the disk filled" || len(snap.Entries) != written+2 {
		t.Errorf("after room came back kept.md = %q and %d entries; want the first write's value and %d", got, len(snap.Entries), written+2)
	}
}

// The writes of the parts both SQL backends share (tokens, here) are
// refused with store.ErrFull too, and recorded for StorageFull.
func TestFullDatabaseRefusesTokenWrites(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if _, err := s.LimitPages(ctx, 1); err != nil {
		t.Fatal(err)
	}
	hash := strings.Repeat("h", 64)
	_, refusal := fill(t, func(i int) error {
		return s.CreateToken(ctx, store.Token{ID: fmt.Sprint("t", i), Subject: "ann", Hash: fmt.Sprint(i, hash), CreatedAt: t0})
	})
	if !errors.Is(refusal, store.ErrFull) {
		t.Fatalf("CreateToken() past the page cap error = %v; want store.ErrFull", refusal)
	}
	if _, err := s.StorageFull(); !errors.Is(err, store.ErrFull) {
		t.Errorf("StorageFull() after the refusal = %v; want the refusal", err)
	}
}
