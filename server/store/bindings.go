package store

import (
	"context"
	"errors"
	"time"
)

// ErrBindingNotFound is returned for a subject that is bound to no
// account.
var ErrBindingNotFound = errors.New("identity binding not found")

// IdentityBinding ties a subject an identity service names by a name its
// owner can change, such as "github:alice", to the account that first
// signed in as it, by the id the service never gives another account
// (GitHub's numeric user id). A name renamed and then taken by another
// account so keeps none of the first account's access.
type IdentityBinding struct {
	Subject string
	// AccountID is the service's id of the account, as text.
	AccountID string
	// BoundAt is when the subject was bound.
	BoundAt time.Time
}

// IdentityBindings keeps the bindings of subjects to accounts.
type IdentityBindings interface {
	// BindIdentity binds b.Subject to b.AccountID at b.BoundAt unless the
	// subject is bound already, and returns the binding in force: b when
	// the subject was free, else the one it had, which may name another
	// account. Of two bindings of one subject at once, one wins and both
	// return it.
	BindIdentity(ctx context.Context, b IdentityBinding) (IdentityBinding, error)
	// IdentityBinding returns subject's binding, or ErrBindingNotFound.
	IdentityBinding(ctx context.Context, subject string) (IdentityBinding, error)
	// ListIdentityBindings lists every binding, by subject.
	ListIdentityBindings(ctx context.Context) ([]IdentityBinding, error)
	// UnbindIdentity releases subject's binding, so that the next account
	// that signs in as it is bound; ErrBindingNotFound when it has none.
	UnbindIdentity(ctx context.Context, subject string) error
}
