package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/store"
)

// PutWebSession implements store.WebSessions.
func (s *Store) PutWebSession(ctx context.Context, ws store.WebSession) error {
	if ws.IDHash == "" {
		return errors.New("put web session: empty id hash")
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("put web session: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "DELETE FROM web_sessions WHERE expires < $1", ws.Created.UnixNano()); err != nil {
		return fmt.Errorf("drop expired web sessions: %w", err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO web_sessions (id_hash, data, created, expires) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id_hash) DO UPDATE SET data = excluded.data, created = excluded.created, expires = excluded.expires`,
		ws.IDHash, ws.Data, ws.Created.UnixNano(), ws.Expires.UnixNano())
	if err != nil {
		return fmt.Errorf("put web session: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("put web session: %w", err)
	}
	return nil
}

// WebSession implements store.WebSessions.
func (s *Store) WebSession(ctx context.Context, idHash string, now time.Time) (store.WebSession, error) {
	ws := store.WebSession{IDHash: idHash}
	var created, expires int64
	err := s.pool.QueryRow(ctx, "SELECT data, created, expires FROM web_sessions WHERE id_hash = $1 AND expires > $2",
		idHash, now.UnixNano()).Scan(&ws.Data, &created, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.WebSession{}, store.ErrWebSessionNotFound
	}
	if err != nil {
		return store.WebSession{}, fmt.Errorf("read web session: %w", err)
	}
	ws.Created, ws.Expires = unixNano(created), unixNano(expires)
	return ws, nil
}

// DeleteWebSession implements store.WebSessions.
func (s *Store) DeleteWebSession(ctx context.Context, idHash string) error {
	if _, err := s.pool.Exec(ctx, "DELETE FROM web_sessions WHERE id_hash = $1", idHash); err != nil {
		return fmt.Errorf("delete web session: %w", err)
	}
	return nil
}
