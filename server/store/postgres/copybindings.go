package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/teammemd/teammemd/server/store"
)

// copyBindings copies the identity bindings the destination lacks. A
// subject bound there to another account is left as it is and reported:
// which account keeps it is the admin's call (teammemd admin identity
// unbind).
func (s *Store) copyBindings(ctx context.Context, src store.Exporter, report *CopyReport) error {
	bindings, err := src.ListIdentityBindings(ctx)
	if err != nil {
		return fmt.Errorf("read identity bindings from the source: %w", err)
	}
	var errs []error
	for _, b := range bindings {
		copied, err := s.copyBinding(ctx, b)
		switch {
		case err != nil:
			errs = append(errs, err)
		case copied:
			report.BindingsCopied++
		default:
			report.BindingsKept++
		}
	}
	return errors.Join(errs...)
}

// copyBinding binds b's subject as in the source unless the destination
// bound it already; copied reports that it was not.
func (s *Store) copyBinding(ctx context.Context, b store.IdentityBinding) (copied bool, err error) {
	have, err := s.IdentityBinding(ctx, b.Subject)
	if errors.Is(err, store.ErrBindingNotFound) {
		have, err = s.BindIdentity(ctx, b)
		copied = true
	}
	switch {
	case err != nil:
		return false, fmt.Errorf("copy the binding of %s: %w", b.Subject, err)
	case have.AccountID != b.AccountID:
		return false, fmt.Errorf("%s is bound to account %s in the source and to %s in the destination; left as it is",
			b.Subject, b.AccountID, have.AccountID)
	}
	return copied, nil
}
