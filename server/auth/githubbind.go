package auth

import (
	"context"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// ReasonBound is the details.reason of the 403 of a credential whose
// subject is bound to another account.
const ReasonBound = "subject_bound_to_another_account"

// bindTimeout bounds the store's binding of a subject, which runs for
// every request that asked about the token meanwhile.
const bindTimeout = 10 * time.Second

// BindingError is a credential of an account other than the one its
// subject is bound to: a GitHub login renamed, and then taken by another
// GitHub user. The credential itself is good, so it is neither a
// *RejectError nor remembered as one: once an admin releases the binding,
// the next request is bound afresh.
type BindingError struct {
	// Mode is the auth mode that vouched for the credential.
	Mode string
	// Subject is the subject the credential names, Login the login in it.
	Subject, Login string
	// BoundID is the id of the account Subject is bound to; ID that of
	// the credential's account.
	BoundID, ID string
}

func (e *BindingError) Error() string {
	return fmt.Sprintf("%s: %s is bound to GitHub user id %s, not %s", e.Mode, e.Subject, e.BoundID, e.ID)
}

// Release is the command that releases the binding.
func (e *BindingError) Release() string { return "teammemd admin identity unbind " + e.Subject }

// Message says, for the person refused, what happened and what to do. It
// leaves out the id of the account the subject is bound to, which would
// name that account to whoever took its old login; the server's log names
// it.
func (e *BindingError) Message() string {
	return fmt.Sprintf("the GitHub login %s first signed in to this server as another GitHub account than this token's (user id %s): "+
		"the login was renamed and taken since, and its access here stays with the first account. "+
		"If it should be yours now, ask the server's admin to release it (%s)", e.Login, e.ID, e.Release())
}

// bind binds user's subject to user's id when it is bound to none, and
// refuses the user with a *BindingError when it is bound to another.
func (a *GitHubAuthenticator) bind(ctx context.Context, user githubUser) error {
	ctx, cancel := context.WithTimeout(ctx, bindTimeout)
	defer cancel()
	want := store.IdentityBinding{Subject: user.subject(), AccountID: user.accountID(), BoundAt: a.now().UTC()}
	have, err := a.bindings.BindIdentity(ctx, want)
	if err != nil {
		return fmt.Errorf("bind %s to GitHub user id %s: %w", want.Subject, want.AccountID, err)
	}
	if have.AccountID != want.AccountID {
		return &BindingError{Mode: ModeGitHub, Subject: want.Subject, Login: user.Login, BoundID: have.AccountID, ID: want.AccountID}
	}
	return nil
}
