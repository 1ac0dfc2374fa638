package postgres

import (
	"context"
	"fmt"

	"github.com/teammemd/teammemd/server/store"
)

// StoreID returns the database's identity: 32 hex digits made when its
// schema was created (migration step 3), the same for every replica.
func (s *Store) StoreID(ctx context.Context) (string, error) {
	var id string
	if err := s.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'store_id'`).Scan(&id); err != nil {
		return "", fmt.Errorf("read store identity: %w", err)
	}
	return id, nil
}

// NewStoreID gives the database a fresh identity and returns it, as after
// restoring a backup: clients that see it change re-baseline with a full
// pull rather than trust versions that may have gone back.
func (s *Store) NewStoreID(ctx context.Context) (string, error) {
	id := store.NewStoreID()
	_, err := s.pool.Exec(ctx, `UPDATE meta SET value = $1 WHERE key = 'store_id'`, id)
	if err := s.wrote(err); err != nil {
		return "", fmt.Errorf("set store identity: %w", err)
	}
	return id, nil
}
