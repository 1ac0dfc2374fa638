package memsync

import (
	"maps"
	"slices"
	"sync"
)

// changeTrack is what a watcher told the engine of the team directory
// since its last scan (Engine.NoteChanges). Until the watcher first says
// it watches (a rescan), it knows nothing, and every scan is whole.
type changeTrack struct {
	mu sync.Mutex
	on bool // the watcher watches: a rescan was noted
	// whole is set from a rescan noted until a whole scan that began after
	// it is saved.
	whole bool
	// rescans counts the rescans noted, seq the notes.
	rescans, seq uint64
	// paths maps each path named since the last scan to the seq of its
	// latest note.
	paths map[string]uint64
}

// trackedScan is what a session took of the track when it opened.
type trackedScan struct {
	named   bool // a scan of names alone may stand for a whole one
	names   []string
	seq     uint64
	rescans uint64
}

// NoteChanges tells the engine which paths of its directory changed (as
// a watcher names them: files or directories, relative, with forward
// slashes), or, with rescan, that anything may have changed. The first
// rescan noted starts the tracking: from the whole scan after it on, a
// run scans only the paths noted since the scan before. A watcher must
// note every change from its first rescan on, and a rescan whenever it
// may have missed one (a lost event queue, a directory it could not
// watch).
func (e *Engine) NoteChanges(paths []string, rescan bool) {
	t := &e.track
	t.mu.Lock()
	defer t.mu.Unlock()
	if rescan {
		t.on, t.whole = true, true
		t.rescans++
	}
	if !t.on {
		return
	}
	if t.paths == nil {
		t.paths = map[string]uint64{}
	}
	t.seq++
	for _, p := range paths {
		t.paths[p] = t.seq
	}
}

// take returns what a session's scans may rely on.
func (t *changeTrack) take() trackedScan {
	t.mu.Lock()
	defer t.mu.Unlock()
	return trackedScan{
		named: t.on && !t.whole, names: slices.Sorted(maps.Keys(t.paths)),
		seq: t.seq, rescans: t.rescans,
	}
}

// scanned records that a session's scan, of the whole directory or of ts
// names alone, is saved with the state: what was noted before the session
// opened is in it.
func (t *changeTrack) scanned(ts trackedScan, whole bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if whole && ts.rescans == t.rescans {
		t.whole = false
	}
	for p, seq := range t.paths {
		if seq <= ts.seq {
			delete(t.paths, p)
		}
	}
}
