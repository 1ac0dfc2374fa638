package daemon

import (
	"errors"
	"io/fs"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/watch"
)

// ownWrites remembers what the repo's pulls wrote into the team directory,
// as the engine saw each file right after writing it, so the watcher
// batches those writes cause are not taken for user edits. It never reads
// a team file: the engine names what each path is now (identify). It is
// owned by the repo's worker goroutine.
type ownWrites struct {
	identify func(key string) (memsync.FileID, error)
	ids      map[string]memsync.FileID // key -> the file written
	deleted  map[string]bool           // keys a pull deleted
}

func newOwnWrites(identify func(key string) (memsync.FileID, error)) *ownWrites {
	return &ownWrites{identify: identify, ids: map[string]memsync.FileID{}, deleted: map[string]bool{}}
}

// note records the writes and deletions of one pull.
func (o *ownWrites) note(rep memsync.Report) {
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
	cur, err := o.identify(p)
	want, written := o.ids[p]
	switch {
	case o.deleted[p]:
		if errors.Is(err, fs.ErrNotExist) {
			return true
		}
		delete(o.deleted, p)
		return false
	case !written:
		// Directories only hold files; the files report themselves.
		return err == nil && cur.Type.IsDir()
	case err != nil || cur != want:
		delete(o.ids, p)
		return false
	}
	return true
}
