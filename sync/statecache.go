package memsync

import (
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/teammemd/teammemd/sync/fsio"
)

// The state a run loads is, most of the time, the one the run before it
// saved: an engine keeps a copy of the state it last read or wrote, with
// the stamp of the file that holds it, and a load whose file still has
// that stamp takes a copy of the copy instead of reading and decoding the
// file again. With a thousand notes in a repo, that decode is most of the
// cost of a run that syncs one of them; the copy is made ahead, while the
// engine is idle, when the daemon reads ahead (prepare).

// stateStamp identifies one version of the state file without reading
// it. Every save replaces the file through a rename, so each has an inode
// of its own; an edit in place moves its mtime.
type stateStamp struct {
	size, mtimeNs int64
	inode         uint64
}

func stampOf(fi fs.FileInfo) stateStamp {
	return stateStamp{size: fi.Size(), mtimeNs: fi.ModTime().UnixNano(), inode: fsio.Inode(fi)}
}

// stateCache is the copy a stateStore keeps: nil state when it has none.
type stateCache struct {
	st    *State
	stamp stateStamp
	// memo is what the scan that made st's Index found besides, when the
	// engine's own run saved st after scanning (keepMemo).
	memo *scanMemo
	// hit is set when the last load took st.
	hit bool
	// spare is a copy of st made ahead of the load that takes it (prepare),
	// nil when none is: that load hands it out instead of copying st.
	spare *State
}

// get returns a copy of the cached state if stamp is the cached one's:
// the spare one when prepare made it, else one made now.
func (c *stateCache) get(stamp stateStamp) (*State, bool) {
	c.hit = c.st != nil && c.stamp == stamp && stamp.inode != 0
	if !c.hit {
		return nil, false
	}
	st := c.spare
	c.spare = nil
	if st == nil {
		st = c.st.clone()
	}
	return st, true
}

// prepare makes the copy of the cached state the next load hands out,
// unless there is one or no state is cached. Made while the engine is
// idle, it spares the run that loads the state a copy of every map in
// it, which after a pause costs milliseconds in a repo of a thousand
// notes (nothing of the maps is left in the processor's caches).
func (c *stateCache) prepare() {
	if c.spare == nil {
		c.renew()
	}
}

// renew makes the copy the next load hands out anew, as prepare does but
// also when one was made before: a copy made seconds ago is as cold as
// the state itself.
func (c *stateCache) renew() {
	if c.st != nil {
		c.spare = c.st.clone()
	}
}

// put keeps st as the state the file with stamp holds. A state read from
// the file (read) is kept as a copy, since its reader goes on to modify
// it, and comes with no scan memo; a state just saved is kept as it is,
// its run being over.
func (c *stateCache) put(st *State, stamp stateStamp, read bool) {
	c.st, c.stamp, c.spare = st, stamp, nil
	if read {
		c.st, c.memo, c.hit = st.clone(), nil, false
	}
}

func (c *stateCache) forget() { c.st, c.memo, c.hit, c.spare = nil, nil, false, nil }

// memo returns the scan memo of the state the last load took from
// memory, nil when it read the file.
func (s *stateStore) memo() *scanMemo {
	if !s.cache.hit {
		return nil
	}
	return s.cache.memo
}

// saved returns the state the store last saved or read, which no one
// modifies (the cache hands out copies), nil when it keeps none.
func (s *stateStore) saved() *State { return s.cache.st }

// keepMemo records m as the scan memo of the state last saved.
func (s *stateStore) keepMemo(m *scanMemo) {
	if s.cache.st != nil {
		s.cache.memo = m
	}
}

// clone returns a copy of st that shares no map or slice with it.
func (st *State) clone() *State {
	c := *st
	c.ServerChecksums = maps.Clone(st.ServerChecksums)
	c.Base = maps.Clone(st.Base)
	c.Tombstones = maps.Clone(st.Tombstones)
	c.Rejected = maps.Clone(st.Rejected)
	c.Review = maps.Clone(st.Review)
	c.HeldDeletions = slices.Clone(st.HeldDeletions)
	c.Conflicts = slices.Clone(st.Conflicts)
	for i := range c.Conflicts {
		c.Conflicts[i].Time = c.Conflicts[i].Time.Round(0) // as the file holds it
	}
	c.Index = maps.Clone(st.Index)
	return &c
}

// readStamped reads the file at path with the stamp of what it read.
func readStamped(path string) ([]byte, stateStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, stateStamp{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, stateStamp{}, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, stateStamp{}, err
	}
	return data, stampOf(fi), nil
}
