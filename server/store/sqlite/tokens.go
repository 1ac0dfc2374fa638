package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// CreateToken implements store.Tokens. Only t.Hash is stored, never a
// secret; ID and Hash must be unique.
func (s *Store) CreateToken(ctx context.Context, t store.Token) error {
	if t.ID == "" || t.Hash == "" {
		return errors.New("create token: empty id or hash")
	}
	grants, err := store.EncodeGrants(t.Grants)
	if err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = time.Now()
	}
	var revoked sql.NullInt64
	if !t.RevokedAt.IsZero() {
		revoked = sql.NullInt64{Int64: t.RevokedAt.UnixNano(), Valid: true}
	}
	_, err = s.wdb.ExecContext(ctx, `INSERT INTO tokens (id, subject, hash, grants, created_at, revoked_at)
		VALUES (?, ?, ?, ?, ?, ?)`, t.ID, t.Subject, t.Hash, grants, t.CreatedAt.UnixNano(), revoked)
	if err != nil {
		return fmt.Errorf("create token %s: %w", t.ID, err)
	}
	return nil
}

const tokenColumns = "id, subject, hash, grants, created_at, revoked_at"

// TokenByHash implements store.Tokens.
func (s *Store) TokenByHash(ctx context.Context, hash string) (store.Token, error) {
	row := s.rdb.QueryRowContext(ctx, "SELECT "+tokenColumns+" FROM tokens WHERE hash = ? AND revoked_at IS NULL", hash)
	t, err := scanToken(row)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Token{}, store.ErrTokenNotFound
	}
	return t, err
}

// ListTokens implements store.Tokens, oldest first.
func (s *Store) ListTokens(ctx context.Context) ([]store.Token, error) {
	rows, err := s.rdb.QueryContext(ctx, "SELECT "+tokenColumns+" FROM tokens ORDER BY created_at, id")
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	tokens := []store.Token{}
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, err
		}
		tokens = append(tokens, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return tokens, nil
}

// RevokeToken implements store.Tokens. Revoking a revoked token keeps its
// first revocation time and succeeds.
func (s *Store) RevokeToken(ctx context.Context, id string, at time.Time) error {
	res, err := s.wdb.ExecContext(ctx, "UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?", at.UnixNano(), id)
	if err != nil {
		return fmt.Errorf("revoke token %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("revoke token %s: %w", id, err)
	}
	if n == 0 {
		return store.ErrTokenNotFound
	}
	return nil
}

type scanner interface{ Scan(dest ...any) error }

func scanToken(r scanner) (store.Token, error) {
	var t store.Token
	var grants string
	var created int64
	var revoked sql.NullInt64
	err := r.Scan(&t.ID, &t.Subject, &t.Hash, &grants, &created, &revoked)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return t, err
		}
		return t, fmt.Errorf("read token: %w", err)
	}
	if t.Grants, err = store.DecodeGrants([]byte(grants)); err != nil {
		return t, fmt.Errorf("read token %s grants: %w", t.ID, err)
	}
	t.CreatedAt = time.Unix(0, created).UTC()
	if revoked.Valid {
		t.RevokedAt = time.Unix(0, revoked.Int64).UTC()
	}
	return t, nil
}
