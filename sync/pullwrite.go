package memsync

import (
	"errors"
	"fmt"
	"os"
	"path"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/sync/fsio"
)

// writeWorkers bounds how many pulled entries are written at once: their
// fsyncs overlap, and the file system commits them together. More workers
// gain nothing: creating and renaming in one directory serialise on it.
const writeWorkers = 8

// entryWrite is one server entry to write into the team directory.
type entryWrite struct {
	key, value string
	sum        string // the entry checksum of value
	base       string // the last agreed checksum, to tell a local edit
	present    bool   // a local file exists
}

// writeOutcome is what writing one entry did.
type writeOutcome struct {
	conflicts []Conflict // local edits kept: the one seen first, a save made since
	skip      string     // why the target was left alone, or ""
	err       error
	// pin is the written file as the stat after the write saw it, when
	// pinned is set: see pinWrite.
	pin    writtenFile
	pinned bool
}

// writeEntries writes the pulled entries concurrently, then fsyncs each
// directory written into once, and only then records the writes in state:
// the state never names a write that a crash could still undo.
func (s *session) writeEntries(writes []entryWrite) error {
	dirs := s.openDirs(writes)
	defer func() {
		for _, d := range dirs {
			if d.root != nil {
				if err := d.spares.Drain(); err != nil {
					s.leftovers.Store(true) // the sweep removes them
				}
				d.root.Close()
			}
		}
	}()
	out := make([]writeOutcome, len(writes))
	now := s.now()
	var g errgroup.Group
	g.SetLimit(writeWorkers)
	for i, w := range writes {
		g.Go(func() error {
			out[i] = s.writeEntry(w, dirs[path.Dir(w.key)], now)
			return nil
		})
	}
	g.Wait()
	written := map[string]bool{}
	for i, w := range writes {
		if out[i].err == nil && out[i].skip == "" {
			written[path.Dir(w.key)] = true
		}
	}
	var syncErr error
	if len(written) > 0 {
		syncErr = s.td.syncDirs(written)
		savetrace.Mark("write.dirsynced", "")
	}
	return s.recordWrites(writes, out, syncErr)
}

// openedDir is one directory the pull writes into, with the files its
// writes displaced that the next ones may be written into, or why it
// cannot.
type openedDir struct {
	root   *os.Root
	spares *fsio.Spares
	err    error
}

// openDirs opens, once each, the directories of the writes.
func (s *session) openDirs(writes []entryWrite) map[string]openedDir {
	out := map[string]openedDir{}
	for _, w := range writes {
		d := path.Dir(w.key)
		if _, ok := out[d]; ok {
			continue
		}
		root, err := s.td.openDir(w.key)
		od := openedDir{root: root, err: err}
		if err == nil {
			od.spares = fsio.NewSpares(root)
		}
		out[d] = od
	}
	return out
}

// writeEntry keeps an unpushed local edit as a conflict copy, then swaps
// the pulled content in and judges the file it displaced, so a save made
// after the first look is kept too; last it pins what it wrote (now is
// the time the writes began). A failed copy stops before the swap: the
// local file stays as it is. It touches no shared state, so entries are
// written at once.
func (s *session) writeEntry(w entryWrite, dir openedDir, now time.Time) writeOutcome {
	o := writeOutcome{err: dir.err}
	known := []string{w.base, w.sum}
	if o.err == nil && w.present {
		var c *Conflict
		var sum string
		c, sum, o.err = s.keepLocalIfEdited(dir.root, w.key, w.base)
		if c != nil {
			o.conflicts = append(o.conflicts, *c)
			known = append(known, sum)
		}
	}
	if o.err == nil {
		beforeReplace(w.key)
	}
	var aside string
	if o.err == nil {
		aside, o.err = fsio.SwapIn(dir.root, path.Base(w.key), []byte(w.value), dir.spares)
		savetrace.Mark("write.renamed", "")
		if o.err != nil {
			o.err = fmt.Errorf("write %s: %w", w.key, o.err)
		}
	}
	if o.err == nil && aside != "" {
		var c *Conflict
		c, o.err = s.settleSwappedOut(dir, w.key, aside, known)
		if c != nil {
			o.conflicts = append(o.conflicts, *c)
		}
	}
	if errors.Is(o.err, fsio.ErrNotRegular) {
		o.skip, o.err = s.blockedReason(o.err), nil
	}
	if o.err == nil && o.skip == "" {
		afterReplace(w.key)
		o.pin, o.pinned = pinWrite(dir.root, path.Base(w.key), int64(len(w.value)), w.sum, now, s.td)
	}
	return o
}

// blockedReason says, for a skip, what local path kept a key from being
// written.
func (s *session) blockedReason(err error) string {
	var be *blockedError
	if errors.As(err, &be) {
		return "local " + s.Show(be.path) + " " + be.why
	}
	return "local path is a symlink or not a regular file"
}

// settleSwappedOut judges the file fsio.SwapIn moved aside from key. Should a
// symlink or directory have taken the file's place just before the
// exchange, it is swapped back and left alone.
func (s *session) settleSwappedOut(od openedDir, key, aside string, known []string) (*Conflict, error) {
	dir := od.root
	fi, err := dir.Lstat(aside)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		if err := fsio.Exchange(dir, aside, path.Base(key)); err != nil {
			return nil, err
		}
		return nil, errors.Join(fsio.ErrNotRegular, dir.Remove(aside))
	}
	return s.settleAside(dir, key, aside, known, od.spares)
}

// recordWrites notes the conflict copies, the skips and, when the
// directories were synced, the written entries; it returns the first error.
func (s *session) recordWrites(writes []entryWrite, out []writeOutcome, syncErr error) error {
	var first error
	for i, w := range writes {
		o := out[i]
		for _, c := range o.conflicts {
			s.recordConflict(c)
		}
		switch {
		case o.err != nil:
			if first == nil {
				first = o.err
			}
		case o.skip != "":
			s.skipEntry(w.key, o.skip, true)
		case syncErr == nil:
			s.recordWrite(w, o)
		}
	}
	if first != nil {
		return first
	}
	return syncErr
}

// recordWrite records one entry written: its merge base, the guards'
// verdict on the value in hand, and, when the write was pinned, its index
// entry and FileID, so the daemon tells the write from a user's without
// reading the file, and the next scan hashes it only to settle the racy
// case (see pinWrite). An entry not pinned leaves no index entry: the
// next scan hashes the file.
func (s *session) recordWrite(w entryWrite, o writeOutcome) {
	s.st.Base[w.key] = w.sum
	s.rep.Pulled = append(s.rep.Pulled, w.key)
	s.guardCheck(w.key, w.sum, []byte(w.value))
	if !o.pinned {
		delete(s.st.Index, w.key)
		return
	}
	s.st.Index[w.key] = o.pin.index
	if s.rep.Written == nil {
		s.rep.Written = map[string]FileID{}
	}
	s.rep.Written[w.key] = o.pin.id
}

// writtenFile is what a write left at its path, as the stat after the write
// saw it: the index entry of the content written, and its FileID.
type writtenFile struct {
	index IndexEntry
	id    FileID
}

// pinWrite stats name in dir after content of size bytes and checksum sum
// was written there, and reports false when what is there is not a
// regular file of that size: a save came between the write and the stat.
// The index entry is racy, as the scan's is for a file it hashes that soon
// after its modification time (see teamDir.racyWindow): a save of the same size
// in the same clock tick as the write keeps every field the stat sees, so
// the next scan hashes the file once more to be sure.
func pinWrite(dir *os.Root, name string, size int64, sum string, now time.Time, td *teamDir) (writtenFile, bool) {
	fi, err := dir.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
		return writtenFile{}, false
	}
	e := IndexEntry{Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano(), Inode: fsio.Inode(fi), Hash: sum, Racy: td.racyAt(fi.ModTime(), now)}
	return writtenFile{index: e, id: fileID(fi)}, true
}
