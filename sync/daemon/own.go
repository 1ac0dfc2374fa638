package daemon

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/watch"
)

// ownWrites remembers what the repo's pulls wrote into the team directory,
// so the watcher batches those writes cause are not taken for user edits.
// It is owned by the repo's worker goroutine.
type ownWrites struct {
	dir  string
	sums map[string]string // key -> checksum written; "" for a deleted file
}

func newOwnWrites(dir string) *ownWrites {
	return &ownWrites{dir: dir, sums: map[string]string{}}
}

// note records the writes and deletions of one pull.
func (o *ownWrites) note(rep memsync.Report) {
	for k, sum := range rep.PulledChecksums {
		o.sums[k] = sum
	}
	for _, k := range rep.Deleted {
		o.sums[k] = ""
	}
}

// only reports whether every path of b is a pull's write still holding the
// content written (or a pull's deletion still absent), or a directory. A
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

// unchanged reports whether path is as the last pull left it.
func (o *ownWrites) unchanged(p string) bool {
	full := filepath.Join(o.dir, filepath.FromSlash(p))
	fi, err := os.Lstat(full)
	sum, ok := o.sums[p]
	switch {
	case !ok:
		// Directories only hold files; the files report themselves.
		return err == nil && fi.IsDir()
	case sum == "":
		return errors.Is(err, fs.ErrNotExist)
	case err != nil || !fi.Mode().IsRegular() || fi.Size() > memsync.MaxFileBytes:
		return false
	}
	data, err := os.ReadFile(full)
	if err != nil || api.EntryChecksum(string(data)) != sum {
		delete(o.sums, p) // edited since: from now on a user change
		return false
	}
	return true
}
