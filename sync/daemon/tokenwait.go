package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/teammemd/teammemd/sync/credential"
)

// msgTokenWait is logged when a repo cannot start because its token file
// gives no token.
const msgTokenWait = "waiting for a valid token file; the repo starts when the file changes"

// tokenWait is a repo that could not start because its token file gives
// no token (credential.FileError): missing, empty or not one word. It
// reads the file every credential check and has the supervisor start the
// repo once the file changed, as a repo whose token the server rejected
// is opened again when its token file changes.
type tokenWait struct {
	spec   Spec
	fault  *credential.FileError
	cancel context.CancelFunc
	done   chan struct{} // closed once the goroutine reading the file ended
}

// waitForToken has s wait for its token file when err says the file
// gives no token, and reports whether it does. The wait ends when the
// file changes, when a reload removes the repo or tries it again, or when
// ctx is done.
func (d *Daemon) waitForToken(ctx context.Context, s Spec, err error) bool {
	var fault *credential.FileError
	if !errors.As(err, &fault) || ctx.Err() != nil {
		return false
	}
	wctx, cancel := context.WithCancel(ctx)
	w := &tokenWait{spec: s, fault: fault, cancel: cancel, done: make(chan struct{})}
	d.mu.Lock()
	d.waiting[s.key()] = w
	d.mu.Unlock()
	// Logged once listed: a status asked on this line finds the repo.
	d.opts.Logger.Warn(msgTokenWait, "repo", s.Repo, "lane", s.lane(), "dir", s.Dir, "file", fault.File, "err", err)
	go func() {
		defer close(w.done)
		if awaitChange(wctx, fault, d.opts.CredentialCheck) {
			select {
			case d.tokenReady <- w:
			case <-wctx.Done():
			}
		}
	}()
	return true
}

// awaitChange reads the file of fault every interval until its content
// changed, and reports whether it did before ctx ended.
func awaitChange(ctx context.Context, fault *credential.FileError, interval time.Duration) bool {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
		if fault.Changed() {
			return true
		}
	}
}

// retryToken starts a repo that waited for its token file, now that the
// file changed, unless a reload removed or replaced the wait meanwhile.
// A file that still gives no token has it wait again, for the next change.
func (d *Daemon) retryToken(ctx context.Context, w *tokenWait) {
	k := w.spec.key()
	d.mu.Lock()
	cur := d.waiting[k]
	if cur == w {
		delete(d.waiting, k)
	}
	d.mu.Unlock()
	w.cancel()
	<-w.done
	if cur != w || ctx.Err() != nil {
		return
	}
	d.opts.Logger.Info("token file changed; starting the repo", "repo", w.spec.Repo, "lane", w.spec.lane(), "dir", w.spec.Dir, "file", w.fault.File)
	if sk, ok := d.launch(ctx, w.spec); !ok {
		d.mu.Lock()
		d.skipped = append(d.skipped, sk)
		d.mu.Unlock()
	}
}

// stopWaits ends the waits for a token file of the repos not in want, and,
// unless keep, of every repo, so that a reload tries them again; it
// returns once their goroutines ended.
func (d *Daemon) stopWaits(want map[string]Spec, keep bool) {
	var stopping []*tokenWait
	d.mu.Lock()
	for k, w := range d.waiting {
		if _, ok := want[k]; ok && keep {
			continue
		}
		w.cancel()
		stopping = append(stopping, w)
		delete(d.waiting, k)
	}
	d.mu.Unlock()
	for _, w := range stopping {
		<-w.done
	}
}

// status is what the daemon's status says of the waiting repo: its state
// StateNoToken, and in Halted what is wrong with the token file and when
// the repo starts.
func (w *tokenWait) status() RepoStatus {
	b := &statusBox{s: RepoStatus{Repo: w.spec.Repo, Lane: w.spec.lane(), Dir: w.spec.Dir, Server: w.spec.Server}}
	b.setHalt(StateNoToken, "waiting for a valid token file ("+w.fault.Error()+
		"): put the token in the file, one word on one line; the repo starts when the file changes or the config is reloaded")
	return b.snapshot()
}
