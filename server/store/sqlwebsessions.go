package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// WebSessionSQL is a backend's statements for SQLWebSessions.
type WebSessionSQL struct {
	// DropExpired deletes the sessions that expire before argument 1.
	DropExpired string
	// Put inserts or replaces the session of id_hash, data, created and
	// expires (arguments 1 to 4).
	Put string
	// Get selects data, created and expires of the session of id_hash
	// (argument 1) that expires after argument 2.
	Get string
	// Delete deletes the session of id_hash (argument 1).
	Delete string
}

// SQLWebSessions implements WebSessions on a backend's SQL.
type SQLWebSessions struct {
	DB   SQL
	Stmt WebSessionSQL
}

// PutWebSession implements WebSessions.
func (s SQLWebSessions) PutWebSession(ctx context.Context, ws WebSession) error {
	if ws.IDHash == "" {
		return errors.New("put web session: empty id hash")
	}
	_, err := s.DB.Exec(ctx,
		Stmt{SQL: s.Stmt.DropExpired, Args: []any{ws.Created.UnixNano()}},
		Stmt{SQL: s.Stmt.Put, Args: []any{ws.IDHash, ws.Data, ws.Created.UnixNano(), ws.Expires.UnixNano()}})
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
		ws.Created, ws.Expires = FromUnixNano(created), FromUnixNano(expires)
		return ws, err
	}, s.Stmt.Get, idHash, now.UnixNano())
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
	if _, err := s.DB.Exec(ctx, Stmt{SQL: s.Stmt.Delete, Args: []any{idHash}}); err != nil {
		return fmt.Errorf("delete web session: %w", err)
	}
	return nil
}
