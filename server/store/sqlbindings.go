package store

import (
	"context"
	"errors"
	"fmt"
)

// The identity_bindings table's statements, the same in every SQL dialect
// the backends speak.
const (
	bindingColumns = "subject, account_id, bound_at"
	insertBinding  = "INSERT INTO identity_bindings (" + bindingColumns + ") VALUES ($1, $2, $3) ON CONFLICT (subject) DO NOTHING"
	bindingOf      = "SELECT " + bindingColumns + " FROM identity_bindings WHERE subject = $1"
	listBindings   = "SELECT " + bindingColumns + " FROM identity_bindings ORDER BY subject"
	deleteBinding  = "DELETE FROM identity_bindings WHERE subject = $1"
)

// SQLIdentityBindings implements IdentityBindings on a backend's SQL.
type SQLIdentityBindings struct {
	DB SQL
}

// BindIdentity implements IdentityBindings: a subject bound already is
// read, with no write; a free one is inserted unless another binding got
// there first, then read.
func (s SQLIdentityBindings) BindIdentity(ctx context.Context, b IdentityBinding) (IdentityBinding, error) {
	if b.Subject == "" || b.AccountID == "" {
		return IdentityBinding{}, errors.New("bind identity: empty subject or account id")
	}
	have, err := s.IdentityBinding(ctx, b.Subject)
	if !errors.Is(err, ErrBindingNotFound) {
		return have, err
	}
	args := []any{b.Subject, b.AccountID, b.BoundAt.UnixNano()}
	if _, err := s.DB.Exec(ctx, Stmt{SQL: insertBinding, Args: args}); err != nil {
		return IdentityBinding{}, fmt.Errorf("bind %s: %w", b.Subject, err)
	}
	return s.IdentityBinding(ctx, b.Subject)
}

// IdentityBinding implements IdentityBindings.
func (s SQLIdentityBindings) IdentityBinding(ctx context.Context, subject string) (IdentityBinding, error) {
	b, found, err := queryFirst(ctx, s.DB, scanBinding, bindingOf, subject)
	switch {
	case err != nil:
		return IdentityBinding{}, fmt.Errorf("read the binding of %s: %w", subject, err)
	case !found:
		return IdentityBinding{}, ErrBindingNotFound
	}
	return b, nil
}

// ListIdentityBindings implements IdentityBindings.
func (s SQLIdentityBindings) ListIdentityBindings(ctx context.Context) ([]IdentityBinding, error) {
	bs, err := queryAll(ctx, s.DB, scanBinding, listBindings)
	if err != nil {
		return nil, fmt.Errorf("list identity bindings: %w", err)
	}
	return bs, nil
}

// UnbindIdentity implements IdentityBindings.
func (s SQLIdentityBindings) UnbindIdentity(ctx context.Context, subject string) error {
	n, err := s.DB.Exec(ctx, Stmt{SQL: deleteBinding, Args: []any{subject}})
	switch {
	case err != nil:
		return fmt.Errorf("unbind %s: %w", subject, err)
	case n == 0:
		return ErrBindingNotFound
	}
	return nil
}

func scanBinding(r Scanner) (IdentityBinding, error) {
	var b IdentityBinding
	var ns int64
	err := r.Scan(&b.Subject, &b.AccountID, &ns)
	b.BoundAt = fromUnixNano(ns)
	return b, err
}
