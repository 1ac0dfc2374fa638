package auth

import "fmt"

// Reasons a credential is rejected, sent as details.reason of the 401.
const (
	ReasonUnknown      = "unknown_token"      // not a credential this server knows
	ReasonExpired      = "token_expired"      // was good, has expired
	ReasonInvalid      = "token_invalid"      // bad signature, issuer or audience
	ReasonRejected     = "token_rejected"     // the issuing service says it is not valid
	ReasonModeOff      = "auth_mode_off"      // a kind of credential this server does not accept
	ReasonUnrecognised = "token_unrecognised" // no mode recognises its form
)

// RejectError is a credential turned away, with what the caller should do.
// It matches ErrUnauthenticated. Its message never holds the credential.
type RejectError struct {
	// Mode is the auth mode that judged the credential.
	Mode string
	// Reason is one of the Reason constants.
	Reason string
	// Message says what happened and what to do, for the person who sees it.
	Message string
}

func (e *RejectError) Error() string { return fmt.Sprintf("%s: %s", e.Mode, e.Message) }

// Is makes a RejectError match ErrUnauthenticated.
func (e *RejectError) Is(target error) bool { return target == ErrUnauthenticated }

func reject(mode, reason, message string) error {
	return &RejectError{Mode: mode, Reason: reason, Message: message}
}

// UnavailableError means a mode could not decide because the service it asks
// (the OIDC provider, GitHub, claude.ai) did not answer usefully; the caller
// should retry later. Err never holds the credential.
type UnavailableError struct {
	Mode string
	Err  error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s: credential could not be checked: %v", e.Mode, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

func unavailable(mode string, format string, args ...any) error {
	return &UnavailableError{Mode: mode, Err: fmt.Errorf(format, args...)}
}
