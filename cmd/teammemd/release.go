package main

import "sync/atomic"

// burstRelease hands memory back to the system after a large sync and
// once more after the scan cache flush that follows it: the flush saves
// the burst's verdicts within a minute and, run after the sync's release,
// leaves its own garbage and the pages of the code it ran (several MB)
// resident until the next release.
type burstRelease struct {
	release   func()
	flushOwed atomic.Bool
}

// afterSync is the daemon's ReleaseMemory: it releases now and owes a
// release to the next flush.
func (b *burstRelease) afterSync() {
	b.release()
	b.flushOwed.Store(true)
}

// afterFlush releases when a large sync came before the flush.
func (b *burstRelease) afterFlush() {
	if b.flushOwed.Swap(false) {
		b.release()
	}
}
