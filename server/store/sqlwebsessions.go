package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The web_sessions table's statements, the same in every SQL dialect the
// backends speak.
const (
	dropExpiredWebSessions = "DELETE FROM web_sessions WHERE expires < $1"
	putWebSession          = `INSERT INTO web_sessions (id_hash, data, created, expires) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id_hash) DO UPDATE SET data = excluded.data, created = excluded.created, expires = excluded.expires`
	getWebSession    = "SELECT data, created, expires FROM web_sessions WHERE id_hash = $1 AND expires > $2"
	deleteWebSession = "DELETE FROM web_sessions WHERE id_hash = $1"
)

// SQLWebSessions implements WebSessions on a backend's SQL.
type SQLWebSessions struct {
	DB SQL
}

// PutWebSession implements WebSessions.
func (s SQLWebSessions) PutWebSession(ctx context.Context, ws WebSession) error {
	if ws.IDHash == "" {
		return errors.New("put web session: empty id hash")
	}
	_, err := s.DB.Exec(ctx,
		Stmt{SQL: dropExpiredWebSessions, Args: []any{ws.Created.UnixNano()}},
		Stmt{SQL: putWebSession, Args: []any{ws.IDHash, ws.Data, ws.Created.UnixNano(), ws.Expires.UnixNano()}})
	if err != nil {
		return fmt.Errorf("put web session: %w", err)
	}
	return nil
}

// WebSession implements WebSessions.
func (s SQLWebSessions) WebSession(ctx context.Context, idHash string, now time.Time) (WebSession, error) {
	ws, found, err := queryFirst(ctx, s.DB, func(r Scanner) (WebSession, error) {
		ws := WebSession{IDHash: idHash}
		var created, expires int64
		err := r.Scan(&ws.Data, &created, &expires)
		ws.Created, ws.Expires = fromUnixNano(created), fromUnixNano(expires)
		return ws, err
	}, getWebSession, idHash, now.UnixNano())
	switch {
	case err != nil:
		return WebSession{}, fmt.Errorf("read web session: %w", err)
	case !found:
		return WebSession{}, ErrWebSessionNotFound
	}
	return ws, nil
}

// DeleteWebSession implements WebSessions.
func (s SQLWebSessions) DeleteWebSession(ctx context.Context, idHash string) error {
	if _, err := s.DB.Exec(ctx, Stmt{SQL: deleteWebSession, Args: []any{idHash}}); err != nil {
		return fmt.Errorf("delete web session: %w", err)
	}
	return nil
}
