package memsync

import (
	"errors"
	"os"
	"path"

	"golang.org/x/sync/errgroup"
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
	conflict *Conflict // the local edit kept before the write
	skipped  bool      // the target is not a regular file: left alone
	err      error
}

// writeEntries writes the pulled entries concurrently, then fsyncs each
// directory written into once, and only then records the writes in state:
// the state never names a write that a crash could still undo.
func (s *session) writeEntries(writes []entryWrite) error {
	dirs := s.openDirs(writes)
	defer func() {
		for _, d := range dirs {
			if d.root != nil {
				d.root.Close()
			}
		}
	}()
	out := make([]writeOutcome, len(writes))
	var g errgroup.Group
	g.SetLimit(writeWorkers)
	for i, w := range writes {
		g.Go(func() error {
			out[i] = s.writeEntry(w, dirs[path.Dir(w.key)])
			return nil
		})
	}
	g.Wait()
	written := map[string]bool{}
	for i, w := range writes {
		if out[i].err == nil && !out[i].skipped {
			written[path.Dir(w.key)] = true
		}
	}
	var syncErr error
	if len(written) > 0 {
		syncErr = s.td.syncDirs(written)
	}
	return s.recordWrites(writes, out, syncErr)
}

// openedDir is one directory the pull writes into, or why it cannot.
type openedDir struct {
	root *os.Root
	err  error
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
		out[d] = openedDir{root: root, err: err}
	}
	return out
}

// writeEntry keeps an unpushed local edit as a conflict copy, then replaces
// the file. It touches no shared state, so entries are written at once.
func (s *session) writeEntry(w entryWrite, dir openedDir) writeOutcome {
	var o writeOutcome
	o.err = dir.err
	if o.err == nil && w.present {
		o.conflict, o.err = s.keepLocalIfEdited(w.key, w.base)
	}
	if o.err == nil {
		o.err = replaceIn(dir.root, w.key, []byte(w.value))
	}
	if errors.Is(o.err, errNotRegular) {
		o.err, o.skipped = nil, true
	}
	return o
}

// recordWrites notes the conflict copies, the skips and, when the
// directories were synced, the written entries; it returns the first error.
func (s *session) recordWrites(writes []entryWrite, out []writeOutcome, syncErr error) error {
	var first error
	for i, w := range writes {
		o := out[i]
		if o.conflict != nil {
			s.recordConflict(*o.conflict)
		}
		switch {
		case o.err != nil:
			if first == nil {
				first = o.err
			}
		case o.skipped:
			s.rep.skip(w.key, "local path is a symlink or not a regular file")
		case syncErr == nil:
			s.st.Base[w.key] = w.sum
			s.rep.Pulled = append(s.rep.Pulled, w.key)
			if s.rep.PulledChecksums == nil {
				s.rep.PulledChecksums = map[string]string{}
			}
			s.rep.PulledChecksums[w.key] = w.sum
		}
	}
	if first != nil {
		return first
	}
	return syncErr
}
