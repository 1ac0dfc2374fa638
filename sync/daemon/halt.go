package daemon

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/login"
)

// Messages logged once when a repo stops for a cause retrying cannot fix.
const (
	msgWrongServer  = "server URL does not lead to a teammemd server; syncing stops until the config is reloaded"
	msgUnauthorized = "server rejected the token; syncing stops until the token file changes or the config is reloaded"
	msgDenied       = "token has no access to the repo; syncing stops until the token file changes or the config is reloaded"
	msgLoginEnded   = "teammemd login ended; syncing stops until you log in again or the config is reloaded"
	msgLaneStopped  = "personal lane stopped; it starts again when the personal key changes or the config is reloaded"
	// msgKeyChangedHere is logged instead when this machine's personal
	// keys changed since the lane opened, as a rotation here changes them.
	msgKeyChangedHere = "the personal key changed on this machine since the lane opened; opening it again with it"
	// A token from the environment is in no file to change: only a
	// restart with another one changes it.
	msgUnauthorizedEnv = "server rejected the token from the environment; syncing stops until the daemon restarts with a valid one"
	msgDeniedEnv       = "token from the environment has no access to the repo; syncing stops until the config is reloaded or the daemon restarts with another"
)

// DefaultCredentialCheck is how often a repo stopped by a rejected token
// reads its token file to see whether it changed.
const DefaultCredentialCheck = 2 * time.Second

// haltCause returns the state and the reason, with its fix, of an error
// that no retry can fix: the server URL leads to something other than a
// teammemd server, the server rejected the token, or the token has no
// access to the repo. The reason names where s's token came from. ok is
// false for any other error.
func haltCause(err error, s Spec) (state, reason string, ok bool) {
	if loginEnded(err, s) {
		return StateUnauthorized, "your teammemd login (" + s.CredentialFile + ") has ended (" + err.Error() + "): run teammemd login" +
			"; syncing resumes when the login is stored or the config is reloaded", true
	}
	switch memsync.Classify(err) {
	case memsync.WrongServer:
		return StateWrongServer, err.Error(), true
	case memsync.TokenRejected:
		rejected, _ := tokenReasons(err, s)
		return StateUnauthorized, rejected, true
	case memsync.LaneStopped:
		return StateLaneStopped, err.Error(), true
	case memsync.NoAccess:
		_, denied := tokenReasons(err, s)
		return StateDenied, denied, true
	}
	return "", "", false
}

// loginEnded reports an error that only a new teammemd login fixes, of a
// repo whose credential is a login: the provider no longer refreshes it,
// or it was logged out of. Retrying would fail the same way until then.
func loginEnded(err error, s Spec) bool {
	return s.CredentialFile != "" && s.TokenEnv == "" && (errors.Is(err, login.ErrExpired) || errors.Is(err, login.ErrNotLoggedIn))
}

// tokenReasons say that the server rejected s's token, and that it has no
// access to the repo, each naming where the token came from and how to
// give another: a token from the environment stays the same until the
// daemon restarts, whatever reloads or logins happen; a token file or a
// login is read again when its file changes. Whom to ask for access is
// the server's to say, in err: the server's admin for a grant, GitHub's
// repo owners for a GitHub token.
func tokenReasons(err error, s Spec) (rejected, denied string) {
	cause, grant := " ("+err.Error()+"): ", "once it has, reload the config, "
	switch file := s.CredentialFile; {
	case s.TokenEnv != "":
		env, unset := s.TokenEnv, " (or unset it to use the token file or teammemd login)"
		return "the token from " + env + " was refused" + cause + "restart the daemon with a valid " + env + unset,
			"the token from " + env + " has no access to this repo" + cause + grant + "or restart the daemon with a " + env + " that has one" + unset
	case file == "":
		resumes := "; syncing resumes when the token file changes or the config is reloaded"
		return "the server rejected the token" + cause + "run teammemd login, or put a valid token in the token file" + resumes,
			"the token has no access to this repo" + cause + grant + "or put a token that has one in the token file" + resumes
	case file == s.TokenFile:
		resumes := "; syncing resumes when the file changes or the config is reloaded"
		return "the token in " + file + " was refused" + cause + "put a valid token in " + file + ", or run teammemd login" + resumes,
			"the token in " + file + " has no access to this repo" + cause + grant + "or put a token that has one in " + file + resumes
	}
	login, resumes := "the token of your teammemd login ("+s.CredentialFile+")", "; syncing resumes when the login is stored or the config is reloaded"
	return login + " was refused" + cause + "run teammemd login" + resumes,
		login + " has no access to this repo" + cause + grant + "or run teammemd login as someone who has one" + resumes
}

// halt stops the repo's requests when err is a cause no retry can fix,
// and reports whether it did. The worker and the change wait stay idle
// until resume.
func (r *repo) halt(err error) bool {
	state, reason, ok := haltCause(err, r.spec)
	if !ok {
		return false
	}
	if !r.status.setHalt(state, reason) {
		return true
	}
	if state == StateLaneStopped && r.keyChangedHere() {
		// This machine's keys changed since the lane opened: a rotation or
		// join here, which the lane's engine does not hold yet. No warning;
		// the lane opens again with them at once.
		r.log.Info(msgKeyChangedHere, "err", err)
		select {
		case r.recheck <- struct{}{}:
		default:
		}
		return true
	}
	r.logHalt(state, err)
	return true
}

// keyChangedHere reports whether a personal lane's key file changed since
// the lane was opened.
func (r *repo) keyChangedHere() bool {
	return r.spec.KeyFile != "" && fileDigest(r.spec.KeyFile) != r.keyAtOpen
}

// logHalt logs, once, that the repo stopped in state for err.
func (r *repo) logHalt(state string, err error) {
	env := r.spec.TokenEnv != ""
	switch {
	case state == StateWrongServer:
		r.log.Error(msgWrongServer, "err", err)
	case state == StateLaneStopped:
		r.log.Warn(msgLaneStopped, "err", err)
	case loginEnded(err, r.spec):
		r.log.Warn(msgLoginEnded, "err", err)
	case state == StateUnauthorized && env:
		r.log.Warn(msgUnauthorizedEnv, "tokenEnv", r.spec.TokenEnv, "err", err)
	case state == StateUnauthorized:
		r.log.Warn(msgUnauthorized, "err", err)
	case env:
		r.log.Warn(msgDeniedEnv, "tokenEnv", r.spec.TokenEnv, "err", err)
	default:
		r.log.Warn(msgDenied, "err", err)
	}
}

// resume lifts a halt, if any.
func (r *repo) resume() {
	if r.status.clearHalt() {
		r.log.Info("resuming repo")
	}
}

// awaitResume blocks while the repo is halted; it reports false when ctx
// ended first.
func (r *repo) awaitResume(ctx context.Context) bool {
	ch := r.status.haltDone()
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

// watchCredential reads the repo's credential file every credential check
// while the server rejects the token, the token has no access, or pushes
// are stopped (a read-only token among the causes), and has the daemon open
// the repo again, with the token read anew, once the file changed.
func (r *repo) watchCredential(ctx context.Context) error {
	file := cmp.Or(r.spec.CredentialFile, r.spec.TokenFile)
	if (file == "" && r.spec.KeyFile == "") || r.restart == nil {
		return nil
	}
	seen, seenKey := fileDigest(file), r.keyAtOpen
	tick := time.NewTicker(r.opts.CredentialCheck)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		case <-r.recheck:
		}
		changed := ""
		switch kind := r.status.haltKind(); {
		case r.tokenMayHelp(kind) && file != "" && newCredential(file, seen):
			changed = file
		case kind == StateLaneStopped && r.spec.KeyFile != "" && fileDigest(r.spec.KeyFile) != seenKey:
			changed = r.spec.KeyFile
		}
		if changed != "" {
			r.log.Info("credential changed; opening the repo again", "file", changed)
			r.restart(ctx)
			return nil
		}
	}
}

// newCredential reports whether file now holds another credential than
// the one of digest seen. A file that cannot be read holds none: a
// credential file removed (a logout) is no new credential to open the
// repo with.
func newCredential(file string, seen [sha256.Size]byte) bool {
	cur := fileDigest(file)
	return cur != seen && cur != [sha256.Size]byte{}
}

// tokenMayHelp reports whether another token may lift what stops the
// repo, halted in kind ("" while running): the server rejected the token,
// the token has no access, or pushes are stopped, as for a token that may
// only read.
func (r *repo) tokenMayHelp(kind string) bool {
	switch kind {
	case StateUnauthorized, StateDenied:
		return true
	case "":
		return r.status.suppressed() != ""
	}
	return false
}

// fileDigest is the SHA-256 of a file's content, zero when it cannot be
// read: a token file is small, and a digest keeps no token in memory.
func fileDigest(path string) [sha256.Size]byte {
	data, err := os.ReadFile(path)
	if err != nil {
		return [sha256.Size]byte{}
	}
	return sha256.Sum256(data)
}
