package memindex

import (
	"slices"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// Source is the team directory an index is read from: a *memsync.Notes.
type Source interface {
	List() ([]memsync.NoteFile, error)
	Read(key string) ([]byte, memsync.NoteFile, error)
}

// Changes are the keys of the notes an update added, changed or removed.
type Changes struct {
	Added, Changed, Removed []string
}

// Empty reports whether nothing changed.
func (c Changes) Empty() bool { return len(c.Added)+len(c.Changed)+len(c.Removed) == 0 }

// Refresh brings the index in line with src: it reads again each note
// whose size or modification time differ from the index's, and drops
// those no longer there.
func (ix *Index) Refresh(src Source) (Changes, error) {
	files, err := src.List()
	if err != nil {
		return Changes{}, err
	}
	var ch Changes
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.Key] = true
		if n, _, ok := ix.Get(f.Key); ok && n.Size == f.Size && n.ModTime.Equal(f.ModTime) {
			continue
		}
		ix.load(src, f.Key, &ch)
	}
	for _, n := range ix.Notes("") {
		if !seen[n.Key] && ix.Remove(n.Key) {
			ch.Removed = append(ch.Removed, n.Key)
		}
	}
	return ch, nil
}

// RefreshKeys reads again the notes at paths, relative paths a watcher
// reported. A path that names no note (a directory, say) makes it a full
// Refresh.
func (ix *Index) RefreshKeys(src Source, paths []string) (Changes, error) {
	if slices.ContainsFunc(paths, func(p string) bool { return !api.IsSyncableKey(p) }) {
		return ix.Refresh(src)
	}
	var ch Changes
	for _, p := range paths {
		ix.load(src, p, &ch)
	}
	return ch, nil
}

// load reads key's note from src into the index, or drops it when it
// cannot be read (gone, or no longer a note), and notes the change.
func (ix *Index) load(src Source, key string, ch *Changes) {
	data, f, err := src.Read(key)
	if err != nil {
		if ix.Remove(key) {
			ch.Removed = append(ch.Removed, key)
		}
		return
	}
	switch added, changed := ix.Put(key, data, f.ModTime); {
	case added:
		ch.Added = append(ch.Added, key)
	case changed:
		ch.Changed = append(ch.Changed, key)
	}
}
