package memsync

import (
	"errors"
	"net"
	"net/http"
	"net/url"

	"github.com/teammemd/teammemd/server/api"
)

// Outcome is what an error from the engine or the client means for the one
// who runs them: retry later, stop pushing, or stop the repo. Classify is
// the one reader of HTTP statuses and the protocol's error codes that
// decides it (PROTOCOL.md sections 4 and 6); a file the server refuses is
// not an error at all: the push leaves it out, sends the rest and lists it
// in Report.Refused.
type Outcome int

// The outcomes, with what the daemon does about each.
const (
	// Done: no error.
	Done Outcome = iota
	// RetryLater: the server answered but cannot take the request now: a
	// 5xx, a 429 (its Retry-After honoured by the client), a 409, or a 412
	// that outlasted the push's rounds. Retry with backoff.
	RetryLater
	// Unreachable: no answer came from the server: a network error, or a
	// 502 or 504 from a proxy in front of it. Retry with backoff.
	Unreachable
	// LocalFault: a failure on this machine, or one no answer explains: the
	// state directory, the disk, the token source. Retry with backoff.
	LocalFault
	// Refused: the server refused content for good (400, 413, 422, any
	// other 4xx but those below) without naming an entry the push could
	// leave out. Push nothing more until the files change.
	Refused
	// RepoFull: the server holds no more entries for the repo (413 too many
	// entries) and gave no limit to fit the push to. As Refused.
	RepoFull
	// ReadOnly: the token may read the repo but not write it (403 on a
	// push). Stop pushing; pulls go on.
	ReadOnly
	// NoAccess: the token has no grant on the repo (403 on a read). Stop
	// every request until the token or the config changes.
	NoAccess
	// TokenRejected: the server rejected the token (401). Stop every
	// request until the token or the config changes.
	TokenRejected
	// WrongServer: the server URL leads to something other than a teammemd
	// server, or the server redirects to another origin. Stop every request
	// until the config changes.
	WrongServer
	// DirMissing: the team directory of a synced repo is missing. Nothing
	// syncs until it is back.
	DirMissing
	// DeletionsHeld: a mass deletion was held back and everything else
	// synced (*MassDeletionError). The deletions wait for the user.
	DeletionsHeld
	// NoRepo: the server holds no such repo: it was never written (404).
	NoRepo
	// LaneStopped: a personal lane cannot go on with the key this machine
	// holds (*LaneStopError, or 409 personal_key_changed). Stop every
	// request until the key changes.
	LaneStopped
)

var outcomeNames = [...]string{
	Done: "done", RetryLater: "retry later", Unreachable: "unreachable", LocalFault: "local fault",
	Refused: "refused", RepoFull: "repo full", ReadOnly: "read-only", NoAccess: "no access",
	TokenRejected: "token rejected", WrongServer: "wrong server", DirMissing: "directory missing",
	DeletionsHeld: "deletions held", NoRepo: "no repo", LaneStopped: "lane stopped",
}

func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return "unknown outcome"
	}
	return outcomeNames[o]
}

// Answered reports whether the outcome means the server itself answered,
// which tells that it is reachable: a lane the server stopped is one of
// its answers too.
func (o Outcome) Answered() bool {
	switch o {
	case RetryLater, Refused, RepoFull, ReadOnly, NoAccess, TokenRejected, NoRepo, LaneStopped:
		return true
	}
	return false
}

// Classify returns the outcome of err, an error from an Engine or a Client
// (wrapped or not); nil is Done.
func Classify(err error) Outcome {
	var (
		ae      *api.Error
		ns      *NotServerError
		re      *RedirectError
		missing *DirMissingError
		mass    *MassDeletionError
		stop    *LaneStopError
		ue      *url.Error
		oe      *net.OpError
	)
	switch {
	case err == nil:
		return Done
	case errors.As(err, &ns), errors.As(err, &re):
		return WrongServer
	case errors.As(err, &missing):
		return DirMissing
	case errors.As(err, &mass):
		return DeletionsHeld
	case errors.As(err, &stop):
		return LaneStopped
	case errors.As(err, &ae):
		return answerOutcome(ae.Status, ae.Code, requestOp(err))
	case errors.As(err, &ue), errors.As(err, &oe):
		return Unreachable
	}
	return LocalFault
}

// answerOutcome is the outcome of an answer with status and error code to
// a request of op (OpPull, OpProbe, OpWait or OpPush); status 0 is no
// answer at all.
func answerOutcome(status int, code, op string) Outcome {
	switch {
	case status == 0, status == http.StatusBadGateway, status == http.StatusGatewayTimeout:
		return Unreachable
	case status == http.StatusUnauthorized:
		return TokenRejected
	case status == http.StatusForbidden && op == OpPush:
		return ReadOnly
	case status == http.StatusForbidden:
		return NoAccess
	case status == http.StatusNotFound && code == api.CodeNotFound:
		return NoRepo
	case code == api.CodePersonalKeyChanged, code == api.CodePersonalNotInitialized, code == api.CodePersonalDisabled:
		return LaneStopped
	case status == http.StatusConflict, status == http.StatusPreconditionFailed, status == http.StatusTooManyRequests:
		return RetryLater
	case code == api.CodeTooManyEntries:
		return RepoFull
	case status >= 400 && status < 500:
		return Refused
	}
	return RetryLater
}

// forRoom reports whether r refuses the content for want of room on the
// server (the personal quota, a repo's entry limit) rather than for what
// it holds: room depends on what the server holds, so the same content
// may be taken once notes are deleted or the limit is raised.
func (r Rejection) forRoom() bool {
	return r.Code == api.CodePersonalQuota || r.Code == api.CodeTooManyEntries
}

// requestError is a failed request with the operation it was for, which
// tells a 403 on a push (the token may still read) from one on a read.
type requestError struct {
	op  string
	err error
}

func (e *requestError) Error() string { return e.err.Error() }
func (e *requestError) Unwrap() error { return e.err }

// requestOp is the operation of the request err failed, "" when unknown.
func requestOp(err error) string {
	var re *requestError
	if errors.As(err, &re) {
		return re.op
	}
	return ""
}
