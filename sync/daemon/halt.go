package daemon

import (
	"cmp"
	"context"
	"crypto/sha256"
	"os"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
)

// Messages logged once when a repo stops for a cause retrying cannot fix.
const (
	msgWrongServer  = "server URL does not lead to a teammemd server; syncing stops until the config is reloaded"
	msgUnauthorized = "server rejected the token; syncing stops until the token file changes or the config is reloaded"
	msgDenied       = "token has no access to the repo; syncing stops until the token file changes or the config is reloaded"
	msgLaneStopped  = "personal lane stopped; it starts again when the personal key changes or the config is reloaded"
)

// DefaultCredentialCheck is how often a repo stopped by a rejected token
// reads its token file to see whether it changed.
const DefaultCredentialCheck = 2 * time.Second

// haltCause returns the state and the reason, with its fix, of an error
// that no retry can fix: the server URL leads to something other than a
// teammemd server, the server rejected the token, or the token has no
// access to the repo. ok is false for any other error.
func haltCause(err error) (state, reason string, ok bool) {
	switch memsync.Classify(err) {
	case memsync.WrongServer:
		return StateWrongServer, err.Error(), true
	case memsync.TokenRejected:
		return StateUnauthorized, "the server rejected the token (" + err.Error() + "): run teammemd login, " +
			"or put a valid token in the token file; syncing resumes when the token file changes or the config is reloaded", true
	case memsync.LaneStopped:
		return StateLaneStopped, err.Error(), true
	case memsync.NoAccess:
		return StateDenied, "the token has no access to this repo (" + err.Error() + "): ask the server's admin for a grant, " +
			"or put a token that has one in the token file; syncing resumes when the token file changes or the config is reloaded", true
	}
	return "", "", false
}

// halt stops the repo's requests when err is a cause no retry can fix,
// and reports whether it did. The worker and the change wait stay idle
// until resume.
func (r *repo) halt(err error) bool {
	state, reason, ok := haltCause(err)
	if !ok {
		return false
	}
	if r.status.setHalt(state, reason) {
		switch state {
		case StateWrongServer:
			r.log.Error(msgWrongServer, "err", err)
		case StateUnauthorized:
			r.log.Warn(msgUnauthorized, "err", err)
		case StateLaneStopped:
			r.log.Warn(msgLaneStopped, "err", err)
		default:
			r.log.Warn(msgDenied, "err", err)
		}
	}
	return true
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
// while the server rejects the token or the token has no access, and has
// the daemon open the repo again, with the token read anew, once the file
// changed.
func (r *repo) watchCredential(ctx context.Context) error {
	file := cmp.Or(r.spec.CredentialFile, r.spec.TokenFile)
	if (file == "" && r.spec.KeyFile == "") || r.restart == nil {
		return nil
	}
	seen, seenKey := fileDigest(file), fileDigest(r.spec.KeyFile)
	tick := time.NewTicker(r.opts.CredentialCheck)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		changed := ""
		switch kind := r.status.haltKind(); {
		case (kind == StateUnauthorized || kind == StateDenied) && file != "" && fileDigest(file) != seen:
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

// fileDigest is the SHA-256 of a file's content, zero when it cannot be
// read: a token file is small, and a digest keeps no token in memory.
func fileDigest(path string) [sha256.Size]byte {
	data, err := os.ReadFile(path)
	if err != nil {
		return [sha256.Size]byte{}
	}
	return sha256.Sum256(data)
}
