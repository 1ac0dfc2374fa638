package memsync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/fsio"
)

// MaxFileBytes is the largest file that syncs (the server's entry cap).
const MaxFileBytes = api.DefaultMaxEntryBytes

// scanWorkers bounds how many files scanLocal stats and hashes at once.
const scanWorkers = 8

// localScan is what scanLocal found: the files that sync, with their index
// entries, those that cannot, and those held back because they cannot be
// read.
type localScan struct {
	files   map[string]IndexEntry
	skipped []Skipped
	held    []Held
}

// scanLocal lists the syncable files of the team directory with their
// hashes, reusing idx for files whose size, mtime and inode are unchanged.
// Files that look syncable but cannot sync are returned as skipped, those
// (and directories) that cannot be read as held. The walk is sequential;
// the files found are hashed concurrently.
func (t *teamDir) scanLocal(idx map[string]IndexEntry, now time.Time) (localScan, error) {
	found, sc, err := t.walkFrom(".")
	if err != nil {
		return localScan{}, err
	}
	files, err := t.indexAll(found, idx, now, &sc)
	if err != nil {
		return localScan{}, err
	}
	sc.files = files
	return sc, nil
}

// indexAll returns the index entries of found, hashing those idx does not
// hold fresh, concurrently; what cannot sync or be read goes to sc.
func (t *teamDir) indexAll(found []localFile, idx map[string]IndexEntry, now time.Time, sc *localScan) (map[string]IndexEntry, error) {
	type indexed struct {
		e            IndexEntry
		reason, held string
	}
	out := make([]indexed, len(found))
	var g errgroup.Group
	g.SetLimit(scanWorkers)
	for i, f := range found {
		g.Go(func() error {
			e, reason, err := t.indexFile(f.key, f.d, idx[f.key], t.warm[f.key].entry, now)
			if errors.Is(err, fs.ErrPermission) {
				out[i] = indexed{held: unreadableFile}
				return nil
			}
			out[i] = indexed{e: e, reason: reason}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("scan team directory: %w", err)
	}
	files := make(map[string]IndexEntry, len(found))
	for i, f := range found {
		switch {
		case out[i].held != "":
			sc.held = append(sc.held, Held{Key: f.key, Reason: out[i].held})
		case out[i].reason != "":
			sc.skipped = append(sc.skipped, Skipped{Key: f.key, Reason: out[i].reason})
		default:
			files[f.key] = out[i].e
		}
	}
	return files, nil
}

// The reasons a file or directory is held back for.
const (
	unreadableFile = "cannot be read (permission denied); it syncs once it is readable"
	unreadableDir  = "directory cannot be read (permission denied); its files sync once it is readable"
)

// scan lists the team directory's syncable files, caching their hashes in
// the state and noting in the session which files cannot sync and which
// are held back. It returns the files and those that cannot sync.
func (s *session) scan() (map[string]IndexEntry, []Skipped, error) {
	sc, err := s.scanFiles()
	if err != nil {
		return nil, nil, err
	}
	s.memo = &scanMemo{skipped: sc.skipped, held: sc.held}
	s.st.Index = sc.files
	s.unsyncable = make(map[string]bool, len(sc.skipped))
	for _, sk := range sc.skipped {
		s.unsyncable[sk.Key] = true
	}
	for _, h := range sc.held {
		s.hold(h.Key, h.Reason)
	}
	return sc.files, sc.skipped, nil
}

// scanFiles scans the paths the watcher named since the last scan alone
// when that scan's findings are at hand, else the whole directory.
func (s *session) scanFiles() (localScan, error) {
	now := s.now()
	if s.td.warm == nil {
		s.td.warm = s.warm.take()
	}
	s.settleRacy()
	if s.tracked.named && s.memo != nil {
		prev := localScan{files: s.st.Index, skipped: s.memo.skipped, held: s.memo.held}
		sc, err := s.td.scanNamed(prev, s.tracked.names, now)
		if err == nil {
			s.scannedNamed = true
			return sc, nil
		}
		if !errors.Is(err, errWholeScan) {
			return localScan{}, err
		}
	}
	sc, err := s.td.scanLocal(s.st.Index, now)
	if err == nil {
		s.scannedWhole = true
	}
	return sc, err
}

// hold holds key back for reason, once per session.
func (s *session) hold(key, reason string) {
	if s.held == nil {
		s.held = map[string]bool{}
	}
	if s.held[key] {
		return
	}
	s.held[key] = true
	s.rep.Held = append(s.rep.Held, Held{Key: key, Reason: reason})
	s.log.Warn("file held back", "key", key, "reason", reason)
}

// holdUnreadable holds key back when err says it cannot be read, and
// reports whether it did.
func (s *session) holdUnreadable(key string, err error) bool {
	if !errors.Is(err, fs.ErrPermission) {
		return false
	}
	s.hold(key, unreadableFile)
	return true
}

// isHeld reports whether key, or a directory above it, is held back: what
// it holds is unknown, so it is neither sent, deleted nor overwritten.
func (s *session) isHeld(key string) bool {
	if len(s.held) == 0 {
		return false
	}
	if s.held[key] {
		return true
	}
	for i := range len(key) {
		if key[i] == '/' && s.held[key[:i+1]] {
			return true
		}
	}
	return false
}

// emptied reports whether none of the files synced before is left in the
// team directory: it was emptied, or removed and created again. That is
// never taken for their deletion (unless AllowMassDelete): the pull writes
// them again from the server.
func (s *session) emptied() bool {
	if len(s.st.Base) == 0 || s.cfg.AllowMassDelete {
		return false
	}
	for k := range s.st.Base {
		if _, err := s.td.root.Lstat(k); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	return true
}

// readable returns the error opening key's file for reading gets, nil when
// it opens.
func (t *teamDir) readable(key string) error {
	if err := readFault(t.path, key); err != nil {
		return err
	}
	f, err := t.root.Open(key)
	if err != nil {
		return err
	}
	return f.Close()
}

// localFile is a candidate file found by walkFrom.
type localFile struct {
	key string
	d   fs.DirEntry
}

// walkFrom lists the files under start ("." for the whole directory) that
// look syncable (api.IsSyncableKey: not hidden, .md or .txt), skips those
// that cannot sync before they are read, and holds back the directories
// below the root that cannot be read. It does not enter hidden
// directories: nothing in them syncs.
func (t *teamDir) walkFrom(start string) ([]localFile, localScan, error) {
	var found []localFile
	var sc localScan
	err := fs.WalkDir(t.root.FS(), start, func(key string, d fs.DirEntry, err error) error {
		if err == nil && key != "." && d.IsDir() {
			err = readFault(t.path, key)
		}
		if err != nil {
			if key == "." || !errors.Is(err, fs.ErrPermission) {
				return err
			}
			sc.held = append(sc.held, Held{Key: key + "/", Reason: unreadableDir})
			return fs.SkipDir
		}
		if key == "." {
			return nil
		}
		if d.IsDir() {
			if api.IsHiddenKey(d.Name()) || t.skips(key, true) {
				return fs.SkipDir
			}
			return nil
		}
		found, sc.skipped = t.candidate(key, d, found, sc.skipped)
		return nil
	})
	if err != nil {
		return nil, localScan{}, fmt.Errorf("scan team directory: %w", err)
	}
	return found, sc, nil
}

// candidate adds the file key, which d describes, to found when it looks
// syncable, or to skipped when it looks so but cannot sync.
func (t *teamDir) candidate(key string, d fs.DirEntry, found []localFile, skipped []Skipped) ([]localFile, []Skipped) {
	if !api.IsSyncableKey(key) || t.skips(key, false) {
		return found, skipped
	}
	if reason := localProblem(key, d); reason != "" {
		return found, append(skipped, Skipped{Key: key, Reason: reason})
	}
	return append(found, localFile{key: key, d: d}), skipped
}

// localProblem says why a candidate file cannot sync before it is read.
func localProblem(key string, d fs.DirEntry) string {
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		return "symlink (only regular files sync)"
	case !d.Type().IsRegular():
		return "not a regular file"
	}
	if err := api.ValidateKey(key, api.Limits{}); err != nil {
		var ae *api.Error
		if errors.As(err, &ae) {
			return ae.Message
		}
		return err.Error()
	}
	return ""
}

// indexFile returns the index entry of one file, hashing it only when
// neither the cached entry nor the one read ahead (warm) matches its
// size, mtime and inode.
func (t *teamDir) indexFile(key string, d fs.DirEntry, cached, warm IndexEntry, now time.Time) (IndexEntry, string, error) {
	fi, err := d.Info()
	if errors.Is(err, fs.ErrNotExist) {
		return IndexEntry{}, "removed while scanning", nil
	}
	if err != nil {
		return IndexEntry{}, "", fmt.Errorf("stat %s: %w", key, err)
	}
	if fi.Size() > MaxFileBytes {
		return IndexEntry{}, fmt.Sprintf("%d bytes, over the %d byte limit; split it into smaller notes", fi.Size(), MaxFileBytes), nil
	}
	e := statEntry(fi)
	if cached.fresh(e) {
		return cached, "", nil
	}
	if warm.fresh(e) {
		return warm, "", nil
	}
	data, err := t.read(key)
	if errors.Is(err, fs.ErrNotExist) {
		return IndexEntry{}, "removed while scanning", nil
	}
	if err != nil {
		return IndexEntry{}, "", err
	}
	if len(data) > MaxFileBytes {
		return IndexEntry{}, fmt.Sprintf("%d bytes, over the %d byte limit", len(data), MaxFileBytes), nil
	}
	e.Size = int64(len(data))
	e.Hash = entrySum(data)
	e.Racy = t.racyAt(fi.ModTime(), now)
	return e, "", nil
}

// statEntry is the index entry of a file as a stat sees it, without its
// hash.
func statEntry(fi fs.FileInfo) IndexEntry {
	return IndexEntry{Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano(), Inode: fsio.Inode(fi)}
}

// fresh reports whether the cached entry c's hash holds for the file whose
// stat is e: same size, mtime and inode, and not hashed so soon after its
// mtime that a later write could have kept them.
func (c IndexEntry) fresh(e IndexEntry) bool {
	return c.Hash != "" && !c.Racy && c.Size == e.Size && c.MtimeNs == e.MtimeNs && c.Inode == e.Inode
}

// Identify returns the FileID of key's path in the team directory, not
// following a symlink; a missing path is an fs.ErrNotExist error. It looks
// through the team directory's root, so a link never leads it outside, and
// reads no file.
func (e *Engine) Identify(key string) (FileID, error) {
	root, err := os.OpenRoot(e.cfg.Dir)
	if err != nil {
		return FileID{}, fmt.Errorf("open team directory: %w", err)
	}
	defer root.Close()
	fi, err := root.Lstat(filepath.FromSlash(key))
	if err != nil {
		return FileID{}, err
	}
	return fileID(fi), nil
}
