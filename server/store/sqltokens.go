package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// TokenColumns are the columns of a token record, in the order of
// TokenSQL's statements.
const TokenColumns = "id, subject, hash, grants, created_at, revoked_at"

// TokenSQL is a backend's statements for SQLTokens.
type TokenSQL struct {
	// Insert stores the values of TokenColumns.
	Insert string
	// ByHash selects TokenColumns of the token of hash (argument 1) that
	// is not revoked.
	ByHash string
	// ByID selects TokenColumns of the token of id (argument 1), revoked
	// or not.
	ByID string
	// List selects TokenColumns of every token, oldest first.
	List string
	// Revoke sets the revocation time (argument 1) of the token of id
	// (argument 2) unless it has one.
	Revoke string
}

// SQLTokens implements Tokens on a backend's SQL.
type SQLTokens struct {
	DB   SQL
	Stmt TokenSQL
}

// CreateToken implements Tokens. Only t.Hash is stored, never a secret;
// ID and Hash must be unique.
func (s SQLTokens) CreateToken(ctx context.Context, t Token) error {
	if t.ID == "" || t.Hash == "" {
		return errors.New("create token: empty id or hash")
	}
	grants, err := EncodeGrants(t.Grants)
	if err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = time.Now()
	}
	args := []any{t.ID, t.Subject, t.Hash, grants, t.CreatedAt.UnixNano(), optionalUnixNano(t.RevokedAt)}
	if _, err := s.DB.Exec(ctx, Stmt{SQL: s.Stmt.Insert, Args: args}); err != nil {
		return fmt.Errorf("create token %s: %w", t.ID, err)
	}
	return nil
}

// TokenByHash implements Tokens.
func (s SQLTokens) TokenByHash(ctx context.Context, hash string) (Token, error) {
	return s.tokenBy(ctx, s.Stmt.ByHash, hash)
}

// TokenByID returns the token with this ID, also when it is revoked, or
// ErrTokenNotFound.
func (s SQLTokens) TokenByID(ctx context.Context, id string) (Token, error) {
	return s.tokenBy(ctx, s.Stmt.ByID, id)
}

// tokenBy returns the token query selects with arg, or ErrTokenNotFound.
func (s SQLTokens) tokenBy(ctx context.Context, query, arg string) (Token, error) {
	t, found, err := queryFirst(ctx, s.DB, scanToken, query, arg)
	switch {
	case err != nil:
		return Token{}, err
	case !found:
		return Token{}, ErrTokenNotFound
	}
	return t, nil
}

// ListTokens implements Tokens, oldest first.
func (s SQLTokens) ListTokens(ctx context.Context) ([]Token, error) {
	tokens, err := queryAll(ctx, s.DB, scanToken, s.Stmt.List)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return tokens, nil
}

// RevokeToken implements Tokens. Revoking a revoked token keeps its first
// revocation time and succeeds.
func (s SQLTokens) RevokeToken(ctx context.Context, id string, at time.Time) error {
	n, err := s.DB.Exec(ctx, Stmt{SQL: s.Stmt.Revoke, Args: []any{at.UnixNano(), id}})
	if err != nil {
		return fmt.Errorf("revoke token %s: %w", id, err)
	}
	if n == 0 {
		return ErrTokenNotFound
	}
	return nil
}

// scanToken reads a row of TokenColumns.
func scanToken(r Scanner) (Token, error) {
	var t Token
	var grants []byte
	var created int64
	var revoked *int64
	if err := r.Scan(&t.ID, &t.Subject, &t.Hash, &grants, &created, &revoked); err != nil {
		return t, fmt.Errorf("read token: %w", err)
	}
	var err error
	if t.Grants, err = DecodeGrants(grants); err != nil {
		return t, fmt.Errorf("read token %s grants: %w", t.ID, err)
	}
	t.CreatedAt = FromUnixNano(created)
	if revoked != nil {
		t.RevokedAt = FromUnixNano(*revoked)
	}
	return t, nil
}
