package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/watch"
)

// worker is the goroutine that alone calls the engine, with what it owes:
// a retry scheduled after a failure, and whether the next attempt must
// pull first.
type worker struct {
	*repo
	retry   *time.Timer
	waiting bool // a retry is scheduled
	// pullOwed is set while the last pull failed, found the directory
	// missing, or left a change unapplied for a reason that may pass (held
	// files back, a file of the user's in the way): the next attempt pulls
	// before it pushes.
	pullOwed bool
	bo       backoff
	// provenanceOf is the repo checksum the provenance was last refreshed
	// for, or tried; provenanceDue fires provenanceQuiet after the
	// checksum provenanceArmed was first seen, unless it moves again.
	provenanceOf, provenanceArmed string
	provenanceDue                 *time.Timer
	// releaseOwed is set by a pull or push that moved at least
	// ReleaseAfter entries; the memory is released once the pass is over.
	releaseOwed bool
	// noRoom is set while the last push left files out for want of room
	// on the server (Report.NoRoom, Report.OverCap); a pull that deletes
	// notes may have made room, and a push follows it (pullForWait).
	noRoom bool
}

// provenanceTimeout bounds one refresh of the provenance record, so the
// worker is never held long by it.
const provenanceTimeout = 5 * time.Second

// provenanceQuiet is how long the repo checksum must stay the same before
// the provenance record is refreshed: a teammate's burst of pushes is
// pulled without a refresh (two history reads) between its pulls.
const provenanceQuiet = 500 * time.Millisecond

// work runs the worker until ctx is done: a start-up pull and push, then
// one attempt per batch of changes, kick or due retry, and a pull whenever
// the change wait asks.
func (r *repo) work(ctx context.Context) error {
	w := &worker{repo: r, retry: time.NewTimer(time.Hour), pullOwed: true,
		bo: backoff{min: r.opts.MinBackoff, max: r.opts.MaxBackoff}, provenanceDue: time.NewTimer(time.Hour)}
	w.retry.Stop()
	w.provenanceDue.Stop()
	defer w.retry.Stop()
	defer w.provenanceDue.Stop()
	r.noteUnsent()
	w.attempt(ctx)
	attached := r.watcher.Attached()
	for {
		w.armProvenance()
		w.releaseIfOwed()
		select {
		case <-ctx.Done():
			return nil
		case <-w.provenanceDue.C:
			w.refreshProvenance(ctx)
			w.releaseIfOwed()
		case <-attached:
			attached = nil
			r.tellEngine(watch.Batch{Rescan: true})
		case paths := <-r.watcher.Soon():
			w.batchDue(ctx, paths)
		case b := <-r.watcher.Batches():
			r.warming.stop()
			if !r.takeBatch(b) {
				continue
			}
			r.unsuppress()
			if !w.waiting {
				r.announceForBatch(ctx)
				w.attempt(ctx)
			}
		case a := <-r.pullReq:
			a.reply <- w.pullForWait(ctx, a)
		case <-r.kick:
			r.resume()
			r.unsuppress()
			w.tryOnce(ctx)
		case <-w.retry.C:
			w.waiting = false
			w.attempt(ctx)
		}
	}
}

// announceWrite has an engine that can tell the server of the push a
// batch of changes is about to start (WriteAnnouncer), unless the repo is
// halted and the attempt will not push.
func (r *repo) announceWrite(ctx context.Context) {
	if a, ok := r.eng.(WriteAnnouncer); ok && r.status.haltKind() == "" {
		a.AnnounceWrite(ctx)
	}
}

// armProvenance starts the wait for a quiet repo when the repo checksum
// differs from the one the provenance was last refreshed for (after a
// pull that applied changes or a push, and once at start), and starts it
// again each time the checksum moves before it is over.
func (w *worker) armProvenance() {
	cur := w.eng.Checksum()
	if cur == "" || cur == w.provenanceOf || cur == w.provenanceArmed {
		return
	}
	w.provenanceArmed = cur
	w.provenanceDue.Reset(provenanceQuiet)
}

// provenancePending reports whether a refresh of the provenance record
// waits for the repo to be quiet.
func (w *worker) provenancePending() bool {
	return w.provenanceArmed != "" && w.provenanceArmed != w.provenanceOf
}

// refreshProvenance has the engine refresh the provenance record for the
// repo checksum it holds, once the checksum stayed the same for
// provenanceQuiet. It runs after the sync, never inside it, within
// provenanceTimeout; a failure is only logged, and tried again after the
// next change.
func (w *worker) refreshProvenance(ctx context.Context) {
	cur := w.eng.Checksum()
	w.provenanceArmed = ""
	if cur == "" || cur == w.provenanceOf || ctx.Err() != nil {
		return
	}
	w.provenanceOf = cur
	rctx, cancel := context.WithTimeout(ctx, provenanceTimeout)
	defer cancel()
	if err := w.eng.RefreshProvenance(rctx); err != nil && ctx.Err() == nil {
		w.log.Warn("provenance not refreshed", "err", err)
	}
	refreshSeen(w.spec.Dir)
}

// owe notes a sync that moved n entries: when n is large enough to have
// grown the heap, memory is released once the worker's pass is over.
func (w *worker) owe(n int) {
	if n >= ReleaseAfter {
		w.releaseOwed = true
	}
}

// releaseIfOwed hands memory back to the system after a large sync, once
// the pass that ran it is over (the provenance refresh after it included),
// so that the garbage of the whole pass is released and none is left to
// the next collection, which an idle daemon runs only every two minutes.
func (w *worker) releaseIfOwed() {
	if w.provenancePending() {
		return // after the refresh
	}
	if w.releaseOwed && w.opts.ReleaseMemory != nil {
		w.opts.ReleaseMemory()
	}
	w.releaseOwed = false
}

// attempt pulls when a pull is owed, then pushes. A failure schedules the
// next attempt.
func (w *worker) attempt(ctx context.Context) {
	w.retry.Stop()
	w.waiting = false
	if w.status.haltKind() != "" {
		return
	}
	w.pullThenPush(ctx)
}

// tryOnce is attempt for a reload, which resumed a halted repo for one
// try: a change wait that fails at the same moment and halts the repo
// again must not skip it.
func (w *worker) tryOnce(ctx context.Context) {
	w.retry.Stop()
	w.waiting = false
	w.pullThenPush(ctx)
}

// pullThenPush pulls when a pull is owed, then pushes unless the pull
// failed.
func (w *worker) pullThenPush(ctx context.Context) {
	if w.pullOwed {
		if _, err := w.pull(ctx, nil); err != nil {
			return
		}
	}
	w.push(ctx)
}

// pullForWait pulls because the change wait saw the repo change, then
// pushes when a push is due and no retry will make it: files are pending,
// or deletions are held back and the change may have lifted the refusal
// (a "teammemd sync --allow-mass-delete" elsewhere, say), or the last push
// left files out for want of room and the pull deleted notes (roomMade).
//
// It pulls nothing when, with no pull owed, the engine holds the checksum
// the wait answered with, or has moved on from the one it was armed with:
// the change seen is this daemon's own push (the server can answer the
// wait before the push has recorded its checksum; the worker, which ran
// the push, sees it recorded here), or one its last pull or push took in.
// The change wait goes on from the engine's checksum, and answers at once
// if the server holds anything else.
func (w *worker) pullForWait(ctx context.Context, a waitAnswer) error {
	if cur := w.checksum(); a.checksum != "" && !w.pullOwed && (a.checksum == cur || a.armed != cur) {
		w.log.Debug("change wait saw the repo's own writes")
		return nil
	}
	deleted, err := w.pull(ctx, &a.hashes)
	if err == nil && !w.waiting && (w.roomMade(deleted) || w.status.hasUnsent()) {
		w.push(ctx)
	}
	return err
}

// roomMade reports whether a pull that deleted notes may have made the
// room the last push lacked; then pushes resume, for the files it held,
// also when a push refused for room stopped them. It is asked before the
// pending list, which a refused push fills, so that it lifts the stop.
func (w *worker) roomMade(deleted int) bool {
	if !w.noRoom || deleted == 0 {
		return false
	}
	w.log.Info("a pull deleted notes; pushing the files held for want of room", "deleted", deleted)
	w.unsuppress()
	return true
}

// pull runs one pull, with the hashes of a change wait's answer as its
// hint when hint is not nil, and records it; a failure is retried. It
// returns how many notes the pull deleted.
func (w *worker) pull(ctx context.Context, hint *api.HashesResponse) (int, error) {
	w.status.setOp(StatePulling)
	var rep memsync.Report
	var err error
	if tctx := w.traced(ctx, retryPull); hint != nil {
		rep, err = w.eng.PullChanged(tctx, *hint)
	} else {
		rep, err = w.eng.Pull(tctx)
	}
	savetrace.Mark("pull.done", "")
	w.status.setOp("")
	w.status.clearRetry(retryPull)
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	w.status.noteReach(err)
	w.recordPull(rep, err)
	w.own.note(rep)
	if err != nil {
		w.pullOwed = true
		w.noteUnsent()
		w.failed(ctx, retryPull, err)
		return 0, err
	}
	w.gotThrough()
	w.pullOwed = rep.PullAgain
	if rep.Rebaselined {
		w.noteUnsent() // what the restored server lacks is pushed again
	}
	if n := len(rep.Pulled) + len(rep.Deleted); n > 0 {
		w.log.Info("pulled", "pulled", len(rep.Pulled), "deleted", len(rep.Deleted))
	}
	w.owe(len(rep.Pulled) + len(rep.Deleted))
	return len(rep.Deleted), nil
}

// push runs one push and records it, unless pushes are stopped. Deletions
// held back are not a failure: the rest was sent.
func (w *worker) push(ctx context.Context) {
	if w.status.suppressed() != "" {
		return
	}
	w.status.setOp(StatePushing)
	savetrace.Mark("push.start", "")
	rep, err := w.eng.Push(w.traced(ctx, retryPush))
	savetrace.Mark("push.done", "")
	w.status.setOp("")
	if ctx.Err() != nil {
		return
	}
	w.status.noteReach(err)
	w.recordPush(rep, err)
	w.noRoom = rep.NoRoom || rep.OverCap != nil
	w.own.note(rep) // an emptied directory's notes, written again
	var mass *memsync.MassDeletionError
	switch {
	case err == nil || errors.As(err, &mass):
		w.status.clearRetry(retryPush)
		w.bo.reset()
		if n := len(rep.Pulled) + len(rep.Deleted); n > 0 {
			// What the push wrote here first: a teammate's change it met,
			// or the server's notes in an emptied directory.
			w.log.Info("pulled", "pulled", len(rep.Pulled), "deleted", len(rep.Deleted))
		}
		if len(rep.Pushed) > 0 || len(rep.SoftDeleted) > 0 {
			w.gotThrough()
			w.log.Info("pushed", "pushed", len(rep.Pushed), "deleted", len(rep.SoftDeleted))
		}
		if len(rep.Proposed) > 0 {
			w.log.Info("proposed for review", "files", len(rep.Proposed))
		}
		if mass != nil {
			w.log.Warn("deletions held back", "files", len(rep.HeldDeletions), "err", err)
		}
		w.owe(len(rep.Pushed) + len(rep.SoftDeleted) + len(rep.Pulled))
	case w.halt(err):
		w.pullOwed = true
		w.noteUnsent()
	case stopsPushes(err):
		w.noteUnsent()
		w.log.Warn("push refused; waiting for the files or the config to change", "err", err)
		w.status.clearRetry(retryPush)
		w.status.update(func(s *RepoStatus) { s.Suppressed = err.Error() })
	default:
		w.noteUnsent()
		w.failed(ctx, retryPush, err)
	}
}

// failed schedules the retry of a failed pull or push with backoff, and
// shows it in the status with its cause. A missing team directory is not
// retried: the watcher reports it back, and the status says so meanwhile.
func (w *worker) failed(ctx context.Context, source string, err error) {
	if w.halt(err) {
		w.pullOwed = true
		return
	}
	var missing *memsync.DirMissingError
	if errors.As(err, &missing) {
		w.pullOwed = true
		w.status.clearRetry(source)
		if w.status.missing() == "" {
			w.log.Warn("team directory missing; syncing resumes when it is back", "err", err)
		}
		w.status.update(func(s *RepoStatus) { s.Missing = err.Error() })
		w.watcher.Recheck()
		return
	}
	d := w.bo.next()
	if source == retryPull {
		w.log.Warn("pull failed; will retry", "err", err, memsync.RetryInAttr(d))
	} else {
		w.log.Warn("push failed; will retry", "err", err, memsync.RetryInAttr(d))
	}
	w.status.setRetry(source, time.Now().Add(d), err.Error())
	if ctx.Err() == nil {
		w.retry.Reset(d)
		w.waiting = true
	}
}
