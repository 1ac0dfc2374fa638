package daemon

import (
	"errors"
	"io/fs"
	"sync"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/watch"
)

// ownWrites remembers what the repo's pulls wrote into the team directory,
// as the engine saw each file right after writing it, so the watcher
// batches those writes cause are not taken for user edits. It never reads
// a team file: the engine names what each path is now (identify). The
// repo's worker alone changes it; a status read looks at it too (asLeft),
// hence the lock, held over the maps alone.
type ownWrites struct {
	identify func(key string) (memsync.FileID, error)
	mu       sync.Mutex
	ids      map[string]memsync.FileID // key -> the file written
	deleted  map[string]bool           // keys a pull deleted
}

func newOwnWrites(identify func(key string) (memsync.FileID, error)) *ownWrites {
	return &ownWrites{identify: identify, ids: map[string]memsync.FileID{}, deleted: map[string]bool{}}
}

// note records the writes and deletions of one pull.
func (o *ownWrites) note(rep memsync.Report) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, id := range rep.Written {
		o.ids[k] = id
		delete(o.deleted, k)
	}
	for _, k := range rep.Deleted {
		o.deleted[k] = true
		delete(o.ids, k)
	}
}

// only reports whether every path of b is a pull's write still as the
// pull left it (or a pull's deletion still absent), or a directory. A
// rescan, or any other path, is a user change.
func (o *ownWrites) only(b watch.Batch) bool {
	if b.Rescan || len(b.Paths) == 0 {
		return false
	}
	for _, p := range b.Paths {
		if !o.unchanged(p) {
			return false
		}
	}
	return true
}

// unchanged reports whether path is as the last pull left it. A file
// changed since is from then on a user change.
func (o *ownWrites) unchanged(p string) bool {
	if o.asLeft(p) {
		return true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.ids, p)
	delete(o.deleted, p)
	return false
}

// asLeft reports whether p is now as the pulls left it: the file a pull
// wrote, unchanged; absent, where a pull deleted it; or a directory,
// which only holds files that report themselves. It forgets nothing.
func (o *ownWrites) asLeft(p string) bool {
	o.mu.Lock()
	want, written := o.ids[p]
	deleted := o.deleted[p]
	o.mu.Unlock()
	cur, err := o.identify(p)
	switch {
	case deleted:
		return errors.Is(err, fs.ErrNotExist)
	case !written:
		return err == nil && cur.Type.IsDir()
	}
	return err == nil && cur == want
}
