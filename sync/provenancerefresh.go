package memsync

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/teammemd/teammemd/server/api"
)

// provenancePages bounds how many history pages one refresh of the
// provenance reads: at historyPageSize revisions a page, 10,000 revisions.
const provenancePages = 20

// carryPageSize bounds the first page of a refresh that carries on from
// an earlier record: a sync or two since then wrote a few revisions, and
// the first older than the record ends the walk.
const carryPageSize = 50

// carryLimit is the size of the first page of a refresh of st that carries
// on from old: one revision for each version since old's and for each key
// changed since, and one more, at or below old's version, which ends the
// walk, when the state knows its version; at most carryPageSize. The
// revisions since are at least as many as either count and seldom more
// than both (a save: one version, one key; a burst: a few versions, one
// revision a key); when they are, the next pages bring the rest.
func carryLimit(st *State, old *Provenance) int {
	versions := st.LastKnownVersion - old.Version
	if st.LastKnownVersion == 0 || versions < 1 || versions >= carryPageSize {
		return carryPageSize
	}
	return min(int(versions)+changedSince(st, old)+1, carryPageSize)
}

// changedSince counts the keys whose checksum or deletion in st old does
// not record.
func changedSince(st *State, old *Provenance) int {
	n := 0
	for k, sum := range st.ServerChecksums {
		if c, ok := old.Keys[k]; !ok || c.Deleted || c.Checksum != sum {
			n++
		}
	}
	for k := range st.Tombstones {
		if c, ok := old.Keys[k]; !ok || !c.Deleted {
			n++
		}
	}
	return n
}

// RefreshProvenance rewrites the repo's provenance file (Provenance) from
// the server's history, read newest first without content until every key
// the state says the server holds has its newest revision, the history
// ends, or provenancePages pages are read. A record made before for the
// same store spares the pages below its version. The caller bounds it
// with ctx.
//
// It is no part of a pull or push: it reads the state without the lock,
// never touches the team directory or the state, and keeps a record
// already made for the state's checksum. A repo never synced has none to
// make. On a failure the old file stays.
//
// The state is the one the engine's last run saved, which it keeps (at
// the checksum Checksum reports); an engine that has not run yet reads
// the file. With a thousand notes, decoding the file cost several times
// the CPU of the save the refresh follows. The record before is the one
// the engine last wrote, while its file is unchanged (keptProvenance).
// When the engine's last run took the repo from that record's checksum to
// the state's with writes whose answers named their revisions (its PUTs',
// the change wait's its pull took), the record is carried over them and
// the history is not read (writeChain.advance).
func (e *Engine) RefreshProvenance(ctx context.Context) error {
	if e.client == nil {
		return nil // a personal lane's history is its own machines'
	}
	st := e.synced.Load() // never modified
	if st == nil {
		var err error
		st, err = e.state.read(e.cfg.Repo, e.remote.Host())
		if errors.Is(err, ErrNoState) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	if st.LastKnownChecksum == "" {
		return nil
	}
	old := e.provKept.take(e.provenance) // a missing or corrupt record is made anew
	if old != nil && (old.Repo != st.Repo || old.Server != st.Server || old.StoreID != st.StoreID) {
		old = nil
	}
	if old != nil && old.Checksum == st.LastKnownChecksum {
		e.provKept.keep(e.provenance, old)
		return nil
	}
	p := e.lastChain.Load().advance(old, st)
	if p == nil {
		var err error
		if p, err = e.walkHistory(ctx, st, old); err != nil {
			return err
		}
	}
	buf, err := p.save(e.provenance, e.provKept.takeBuffer())
	if err != nil {
		return err
	}
	e.provKept.keep(e.provenance, p)
	e.provKept.keepBuffer(buf)
	return nil
}

// keptProvenance is the provenance record an engine last wrote, with the
// stamp of the file that holds it: the next refresh starts from it
// instead of decoding the file, which with a thousand notes cost more
// than the rest of the refresh, and carries it over the last run's writes
// in place (writeChain.advance) instead of copying it.
type keptProvenance struct {
	mu    sync.Mutex
	p     *Provenance
	stamp stateStamp
	// buf is the memory of the last write's bytes, for the next one's.
	buf []byte
}

// take returns the record in the file at path, the caller's to change:
// the kept one while the file has its stamp, which is kept no more, else
// the file's; nil when it is missing or corrupt.
func (k *keptProvenance) take(path string) *Provenance {
	k.mu.Lock()
	defer k.mu.Unlock()
	p := k.p
	k.p = nil
	if fi, err := os.Stat(path); err == nil && p != nil && stampOf(fi) == k.stamp && k.stamp.inode != 0 {
		return p
	}
	p, _ = LoadProvenance(path)
	return p
}

// keep keeps p, the record the file at path holds; a file that cannot
// be stamped is read again next time.
func (k *keptProvenance) keep(path string, p *Provenance) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.p = nil
	if fi, err := os.Stat(path); err == nil {
		k.p, k.stamp = p, stampOf(fi)
	}
}

// takeBuffer hands out the memory kept for the next write, nil when none
// is; keepBuffer keeps the bytes of a write for the next one.
func (k *keptProvenance) takeBuffer() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	buf := k.buf
	k.buf = nil
	return buf
}

func (k *keptProvenance) keepBuffer(buf []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.buf = buf
}

// walkHistory reads the repo's history, newest first and without content,
// into a provenance record for st.
func (e *Engine) walkHistory(ctx context.Context, st *State, old *Provenance) (*Provenance, error) {
	w := provenanceWalk{
		p: &Provenance{Format: provenanceFormat, Repo: st.Repo, Server: st.Server, StoreID: st.StoreID,
			Checksum: st.LastKnownChecksum, Keys: map[string]Change{}},
		live: st.ServerChecksums,
		old:  old,
	}
	cursor, limit := "", historyPageSize
	if old != nil {
		limit = carryLimit(st, old)
	}
	for pages := 1; !w.covered(); pages++ {
		if pages > provenancePages {
			e.log.Info("provenance incomplete", "pages", provenancePages, "keys", len(w.p.Keys))
			return w.finish(st), nil
		}
		page, err := e.client.HistoryPage(ctx, e.cfg.Repo, HistoryRequest{Cursor: cursor, Limit: limit, NoContent: true})
		if err != nil {
			return nil, err
		}
		limit = historyPageSize
		for _, r := range page.Revisions {
			w.note(r)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	w.p.Complete = true
	e.log.Debug("provenance refreshed", "keys", len(w.p.Keys), "version", w.p.Version)
	return w.finish(st), nil
}

// provenanceWalk is one refresh's read of the history.
type provenanceWalk struct {
	p    *Provenance
	live map[string]string
	// old is the previous record of the same store, until the walk reaches
	// its version: from there on, its keys' changes are those it recorded.
	old *Provenance
}

// note takes in one revision, the next older one of the history.
func (w *provenanceWalk) note(r api.Revision) {
	if w.p.Version == 0 {
		w.p.Version = r.Version
		if w.old != nil && w.old.Version > r.Version {
			w.old = nil // the store went back: its versions tell nothing
		}
	}
	if w.old != nil && r.Version <= w.old.Version {
		for k, c := range w.old.Keys {
			w.add(k, c)
		}
		w.old = nil
	}
	w.add(r.Key, Change{Version: r.Version, Subject: r.Subject, Time: r.Time.UTC(), Checksum: r.Checksum, Deleted: r.Deleted})
}

// add records c as key k's change unless a newer one is recorded, or c is
// malformed.
func (w *provenanceWalk) add(k string, c Change) {
	if _, seen := w.p.Keys[k]; !seen && c.check(k) == nil {
		w.p.Keys[k] = c
	}
}

// covered reports whether every key the server holds has its change.
func (w *provenanceWalk) covered() bool {
	for k := range w.live {
		if _, ok := w.p.Keys[k]; !ok {
			return false
		}
	}
	return true
}

// finish returns the record, keeping the keys the server holds or has
// deleted, as st last saw them.
func (w *provenanceWalk) finish(st *State) *Provenance {
	for k := range w.p.Keys {
		_, live := st.ServerChecksums[k]
		_, tomb := st.Tombstones[k]
		if !live && !tomb {
			delete(w.p.Keys, k)
		}
	}
	return w.p
}
