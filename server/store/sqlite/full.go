package sqlite

import (
	"context"
	"errors"
	"fmt"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/teammemd/teammemd/server/store"
)

// fullError returns err as a store.ErrFull when SQLite refused the write
// for want of room (SQLITE_FULL: the disk is full, or the database is at
// its page cap), else as it is.
func fullError(err error) error {
	var se *msqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL {
		return store.FullError(err)
	}
	return err
}

// wrote returns the outcome err of a write, a refusal for want of room
// made a store.ErrFull, and records it for StorageFull.
func (s *Store) wrote(err error) error { return s.full.Note(fullError(err)) }

// StorageFull returns when the last write was refused because the disk or
// the database was full, and the refusal (a store.ErrFull); the zero time
// and nil when none was, or a write has succeeded since.
func (s *Store) StorageFull() (time.Time, error) { return s.full.Full() }

// LimitPages caps the database at pages pages of its page size for the
// writes of this Store until it is closed, as SQLite's max_page_count
// does on the writer's connection: a write that needs more is refused
// with store.ErrFull, as on a full disk, and nothing of it is written. A
// cap below the pages the database holds is raised to them; 0 leaves the
// cap as it is. It returns the cap in force. The tests of what a full
// disk does use it to fill the database for real.
func (s *Store) LimitPages(ctx context.Context, pages int64) (int64, error) {
	q := "PRAGMA max_page_count"
	if pages > 0 {
		q = fmt.Sprintf("PRAGMA max_page_count = %d", pages)
	}
	var got int64
	if err := s.wdb.QueryRowContext(ctx, q).Scan(&got); err != nil {
		return 0, fmt.Errorf("limit database pages: %w", err)
	}
	return got, nil
}
