package daemon

import (
	"slices"

	"github.com/teammemd/teammemd/watch"
)

// statusNow is the repo's status as a reader asks for it: the box's
// snapshot, with the conflict copies its saved state lists and the files
// its watcher holds in the debounce.
func (r *repo) statusNow() RepoStatus {
	conflicts, known := r.conflicts()
	return r.status.snapshotWith(outside{conflicts: conflicts, conflictsKnown: known, debouncing: r.debouncing()})
}

// debouncing lists the files changed here that the watcher holds and the
// worker has not taken in: in the debounce, or in a batch not yet taken.
// It leaves out what takeBatch would not take for a user's change: the
// paths the engine ignores, and the pulls' own writes as they left them
// (directories too). It runs when the status is read, never on the
// worker's path, which pays nothing for it.
func (r *repo) debouncing() []string {
	paths := r.relevant(watch.Batch{Paths: r.watcher.Undelivered()}).Paths
	return slices.DeleteFunc(paths, r.own.asLeft)
}
