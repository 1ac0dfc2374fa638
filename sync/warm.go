package memsync

import (
	"cmp"
	"context"
	"runtime"
	"sync"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/fsio"
)

// Reading ahead. A daemon's watcher names the files a user saved a moment
// after the last save (watch.Options.Settle), well before its debounce
// ends. Warm reads and hashes those files then and has the scanner judge
// them, so that the push the debounce starts finds their hashes by size,
// mtime and inode as it finds an unchanged file's, their content in
// memory and the scanner's verdict in its cache: the push itself reads,
// hashes and scans nothing it was told of in time, and a burst of saves
// leaves the CPU to the push and to the teammates' pulls. The same hint
// after a pull's writes lets Warm hash them once more, out of the way, as
// the next run would have to before it trusts them. Either way Warm also
// makes the copy of the saved state the next run loads (prepareState).

// The bounds of what Warm keeps until a push takes it: the files beyond
// warmMaxFiles are not read ahead, and the content beyond warmMaxBytes is
// not kept (the push reads those files again).
const (
	warmMaxFiles = 16384
	warmMaxBytes = 8 << 20
)

// warmFile is one file read ahead: its index entry, trusted by its stat as
// the scan's are, and its content when the byte bound left room for it.
type warmFile struct {
	entry IndexEntry
	data  []byte
}

// warmCache holds what Warm read until a session takes it.
type warmCache struct {
	mu       sync.Mutex
	files    map[string]warmFile
	bytes    int
	maxBytes int // warmMaxBytes; a test may lower it
}

// take returns what was read ahead and forgets it.
func (w *warmCache) take() map[string]warmFile {
	w.mu.Lock()
	defer w.mu.Unlock()
	files := w.files
	w.files, w.bytes = nil, 0
	return files
}

// wants reports whether key, as the stat e shows it, is worth reading
// ahead: not read ahead as it is, and room left for it.
func (w *warmCache) wants(key string, e IndexEntry) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, ok := w.files[key]
	return ok && !f.entry.sameFile(e) || !ok && len(w.files) < warmMaxFiles
}

// keep records f for key, dropping its content when over the byte bound,
// unless warmMaxFiles are held.
func (w *warmCache) keep(key string, f warmFile) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.files == nil {
		w.files = map[string]warmFile{}
	}
	old, had := w.files[key]
	if !had && len(w.files) >= warmMaxFiles {
		return
	}
	w.bytes -= len(old.data)
	if w.bytes+len(f.data) > cmp.Or(w.maxBytes, warmMaxBytes) {
		f.data = nil
	}
	w.bytes += len(f.data)
	w.files[key] = f
}

// Warm reads ahead the files at keys, paths relative to the team
// directory as a watcher names them: each regular file that syncs, whose
// stat differs from the index of the last run and that was last modified
// longer ago than its file system's racy window, is read, hashed and
// judged by the scanner, and kept for the next push; one the last run
// indexed without trusting its hash is hashed again (see warmOne). It
// changes nothing on disk or in the state, takes no lock a run holds, and
// stops when ctx is done. A personal lane reads nothing ahead.
func (e *Engine) Warm(ctx context.Context, keys []string) {
	e.prepareState()
	if e.cfg.Lane != "" || len(keys) == 0 {
		return
	}
	td, err := openTeamDir(e.cfg.Dir)
	if err != nil {
		return // the run reports it
	}
	defer td.close()
	td.racy = fsio.RacyWindow(td.root)
	var last map[string]IndexEntry
	if st := e.synced.Load(); st != nil {
		last = st.Index
	}
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, k := range keys {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			e.warmOne(ctx, td, k, last[k])
			return nil
		})
	}
	g.Wait()
}

// prepareState makes the copy of the saved state that the next run
// loads and changes (stateCache.prepare), unless a run holds the engine:
// that run's save makes the copy stale anyway.
func (e *Engine) prepareState() {
	if !e.mu.TryLock() {
		return
	}
	defer e.mu.Unlock()
	e.state.cache.prepare()
}

// WarmState makes the copy of the saved state the next run loads anew,
// reading every map of the state on the way, so that a run about to
// start (a push whose batch is due) finds them in the processor's caches
// rather than where seconds of sleep left them. It changes nothing a run
// relies on, and does nothing while a run is under way.
func (e *Engine) WarmState() {
	if !e.mu.TryLock() {
		return
	}
	defer e.mu.Unlock()
	e.state.cache.renew()
}

// warmOne reads key ahead unless it cannot sync, was read ahead as it is,
// or is too recently modified to be trusted by its stat. A file as the
// last run indexed it is read only when that run could not trust its hash
// (a racy entry, as a pull's writes are): it is hashed again, and the
// next run trusts it by its stat instead of hashing it on its way.
func (e *Engine) warmOne(ctx context.Context, td *teamDir, key string, indexed IndexEntry) {
	if !api.IsSyncableKey(key) || api.ValidateKey(key, api.Limits{}) != nil {
		return
	}
	now := e.now()
	fi, err := td.root.Lstat(key)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxFileBytes {
		return
	}
	st := statEntry(fi)
	settle := indexed.sameFile(st)
	if settle && !indexed.Racy || !e.warm.wants(key, st) || td.racyAt(fi.ModTime(), now) {
		return
	}
	data, err := td.read(key)
	if err != nil || int64(len(data)) != st.Size {
		return
	}
	st.Hash = entrySum(data)
	if settle && st.Hash == indexed.Hash {
		e.warm.keep(key, warmFile{entry: st}) // no push sends it: no content kept
		return
	}
	if e.scanner != nil && utf8.Valid(data) {
		if _, err := e.scanner.File(ctx, e.scanPath(key), data); err != nil {
			return
		}
	}
	e.warm.keep(key, warmFile{entry: st, data: data})
}

// sameFile reports whether e and o describe the same file version by
// size, mtime and inode.
func (e IndexEntry) sameFile(o IndexEntry) bool {
	return e.Size == o.Size && e.MtimeNs == o.MtimeNs && e.Inode == o.Inode
}

// settleRacy replaces each racy entry of the index (a pull's write, a
// file hashed too soon after its save) with the entry read ahead of the
// same file version: read past the racy window, its hash holds for that
// stat, and the scan trusts it as it trusts any entry the watcher named
// no change of since, instead of looking at the file again.
func (s *session) settleRacy() {
	for k, f := range s.td.warm {
		if e, ok := s.st.Index[k]; ok && e.Racy && e.sameFile(f.entry) {
			s.st.Index[k] = f.entry
		}
	}
}

// aheadOf returns, for each of keys, the file read ahead when its content
// was kept and the scan's entry for it is the one it was read as: the
// file has not changed since.
func (s *session) aheadOf(local map[string]IndexEntry, keys []string) map[string]warmFile {
	files := s.td.warm // taken by the scan that made local
	if len(files) == 0 {
		return nil
	}
	out := map[string]warmFile{}
	for _, k := range keys {
		f, ok := files[k]
		if ok && f.data != nil && f.entry == local[k] {
			out[k] = f
		}
	}
	return out
}
