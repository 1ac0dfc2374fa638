package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// tokenColumns are the columns of a token record, in the order scanToken
// reads them.
const tokenColumns = "id, subject, hash, grants, created_at, revoked_at"

// The tokens table's statements, the same in every SQL dialect the
// backends speak.
const (
	insertToken  = "INSERT INTO tokens (" + tokenColumns + ") VALUES ($1, $2, $3, $4, $5, $6)"
	tokenByHash  = "SELECT " + tokenColumns + " FROM tokens WHERE hash = $1 AND revoked_at IS NULL"
	tokenByID    = "SELECT " + tokenColumns + " FROM tokens WHERE id = $1"
	listTokens   = "SELECT " + tokenColumns + " FROM tokens ORDER BY created_at, id"
	revokeTokens = "UPDATE tokens SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2"
	countTokens  = "SELECT count(*), count(revoked_at) FROM tokens"
)

// SQLTokens implements Tokens on a backend's SQL.
type SQLTokens struct {
	DB SQL
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
	if _, err := s.DB.Exec(ctx, Stmt{SQL: insertToken, Args: args}); err != nil {
		return fmt.Errorf("create token %s: %w", t.ID, err)
	}
	return nil
}

// TokenByHash implements Tokens.
func (s SQLTokens) TokenByHash(ctx context.Context, hash string) (Token, error) {
	return s.tokenBy(ctx, tokenByHash, hash)
}

// TokenByID returns the token with this ID, also when it is revoked, or
// ErrTokenNotFound.
func (s SQLTokens) TokenByID(ctx context.Context, id string) (Token, error) {
	return s.tokenBy(ctx, tokenByID, id)
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
	tokens, err := queryAll(ctx, s.DB, scanToken, listTokens)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return tokens, nil
}

// RevokeToken implements Tokens. Revoking a revoked token keeps its first
// revocation time and succeeds.
func (s SQLTokens) RevokeToken(ctx context.Context, id string, at time.Time) error {
	n, err := s.DB.Exec(ctx, Stmt{SQL: revokeTokens, Args: []any{at.UnixNano(), id}})
	if err != nil {
		return fmt.Errorf("revoke token %s: %w", id, err)
	}
	if n == 0 {
		return ErrTokenNotFound
	}
	return nil
}

// TokenCounts implements Tokens.
func (s SQLTokens) TokenCounts(ctx context.Context) (TokenCounts, error) {
	c, _, err := queryFirst(ctx, s.DB, func(r Scanner) (TokenCounts, error) {
		var c TokenCounts
		if err := r.Scan(&c.Tokens, &c.Revoked); err != nil {
			return c, fmt.Errorf("read token counts: %w", err)
		}
		return c, nil
	}, countTokens)
	if err != nil {
		return TokenCounts{}, fmt.Errorf("count tokens: %w", err)
	}
	return c, nil
}

// scanToken reads a row of tokenColumns.
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
	t.CreatedAt = fromUnixNano(created)
	if revoked != nil {
		t.RevokedAt = fromUnixNano(*revoked)
	}
	return t, nil
}
