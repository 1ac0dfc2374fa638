package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// PutWebSession implements store.WebSessions.
func (s *Store) PutWebSession(ctx context.Context, ws store.WebSession) error {
	if ws.IDHash == "" {
		return errors.New("put web session: empty id hash")
	}
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("put web session: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM web_sessions WHERE expires < ?", ws.Created.UnixNano()); err != nil {
		return fmt.Errorf("drop expired web sessions: %w", err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO web_sessions (id_hash, data, created, expires) VALUES (?, ?, ?, ?)
		ON CONFLICT (id_hash) DO UPDATE SET data = excluded.data, created = excluded.created, expires = excluded.expires`,
		ws.IDHash, ws.Data, ws.Created.UnixNano(), ws.Expires.UnixNano())
	if err != nil {
		return fmt.Errorf("put web session: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("put web session: %w", err)
	}
	return nil
}

// WebSession implements store.WebSessions.
func (s *Store) WebSession(ctx context.Context, idHash string, now time.Time) (store.WebSession, error) {
	ws := store.WebSession{IDHash: idHash}
	var created, expires int64
	err := s.rdb.QueryRowContext(ctx, "SELECT data, created, expires FROM web_sessions WHERE id_hash = ? AND expires > ?",
		idHash, now.UnixNano()).Scan(&ws.Data, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return store.WebSession{}, store.ErrWebSessionNotFound
	}
	if err != nil {
		return store.WebSession{}, fmt.Errorf("read web session: %w", err)
	}
	ws.Created, ws.Expires = time.Unix(0, created).UTC(), time.Unix(0, expires).UTC()
	return ws, nil
}

// DeleteWebSession implements store.WebSessions.
func (s *Store) DeleteWebSession(ctx context.Context, idHash string) error {
	if _, err := s.wdb.ExecContext(ctx, "DELETE FROM web_sessions WHERE id_hash = ?", idHash); err != nil {
		return fmt.Errorf("delete web session: %w", err)
	}
	return nil
}
