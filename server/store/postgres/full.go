package postgres

import (
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/teammemd/teammemd/server/store"
)

// codeDiskFull is the SQLSTATE of disk_full: PostgreSQL could not extend
// a file of the database for want of room. Its neighbours in class 53,
// out_of_memory (53200) and configuration_limit_exceeded (53400), say
// nothing of the storage.
const codeDiskFull = "53100"

// fullError returns err as a store.ErrFull when PostgreSQL refused the
// write for want of room (disk_full), else as it is.
func fullError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == codeDiskFull {
		return store.FullError(err)
	}
	return err
}

// wrote returns the outcome err of a write, a refusal for want of room
// made a store.ErrFull, and records it for StorageFull.
func (s *Store) wrote(err error) error { return s.full.Note(fullError(err)) }

// StorageFull returns when this Store's last write was refused because
// the database's disk was full, and the refusal (a store.ErrFull); the
// zero time and nil when none was, or a write has succeeded since.
func (s *Store) StorageFull() (time.Time, error) { return s.full.Full() }
