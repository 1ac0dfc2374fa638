package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/teammemd/teammemd/server/store"
)

// ensureIdentity gives the database its identity, a random id made once
// when the database is first opened by a teammemd that knows identities,
// kept in the meta table.
func ensureIdentity(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS meta (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	);
	INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', lower(hex(randomblob(16))));`)
	if err != nil {
		return fmt.Errorf("create store identity: %w", err)
	}
	return nil
}

// StoreID returns the database's identity: 32 hex digits made when the
// database was created, the same for every process that opens it.
func (s *Store) StoreID(ctx context.Context) (string, error) {
	var id string
	err := s.pool().QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'store_id'`).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("read store identity: %w", err)
	}
	return id, nil
}

// NewStoreID gives the database a fresh identity and returns it, as after
// restoring a backup: clients that see it change re-baseline with a full
// pull rather than trust versions that may have gone back.
func (s *Store) NewStoreID(ctx context.Context) (string, error) {
	id := store.NewStoreID()
	_, err := s.wdb.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'store_id'`, id)
	if err := s.wrote(err); err != nil {
		return "", fmt.Errorf("set store identity: %w", err)
	}
	return id, nil
}
