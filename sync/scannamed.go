package memsync

import (
	"errors"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// A scan of the whole team directory costs a stat of every file, however
// few changed. While a watcher names what changes (Engine.NoteChanges),
// a run scans only the paths it named since the last scan, and takes what
// the last scan found for the rest: scanNamed.

// errWholeScan is scanNamed's answer when only a whole scan can tell:
// something was held back as unreadable, or a named path could not be
// looked at.
var errWholeScan = errors.New("the whole team directory must be scanned")

// scanMemo is what a scan found besides the files' index entries, which
// the state keeps: what cannot sync and what is held back.
type scanMemo struct {
	skipped []Skipped
	held    []Held
}

// scanNamed is scanLocal for a directory in which only the paths names
// (files or directories, as a watcher names them) changed since the scan
// prev. The entries of prev.files under no name are kept but those hashed
// too soon after their mtime (Racy), which are indexed again; each name
// is looked at again, a directory walked whole. The result's files are
// prev.files, updated in place: the caller gives prev.files up, whatever
// the answer (on an error, what was updated is the file as a fresh look
// found it, which a later scan may take as any index entry).
func (t *teamDir) scanNamed(prev localScan, names []string, now time.Time) (localScan, error) {
	if len(prev.held) > 0 || 2*len(names) > len(prev.files) {
		return localScan{}, errWholeScan
	}
	named := make(map[string]bool, len(names))
	for _, n := range names {
		named[n] = true
	}
	for k, e := range prev.files {
		if e.Racy {
			named[k] = true
		}
	}
	under := func(k string) bool { return coveredBy(k, named) }
	sc := localScan{
		skipped: slices.DeleteFunc(slices.Clone(prev.skipped), func(s Skipped) bool { return under(s.Key) }),
	}
	found, err := t.lookAt(slices.Sorted(maps.Keys(named)), &sc)
	if err != nil {
		return localScan{}, err
	}
	indexed, err := t.indexAll(found, prev.files, now, &sc)
	if err != nil {
		return localScan{}, err
	}
	// The files named are looked at again; every other is as before.
	files := prev.files
	if files == nil {
		files = map[string]IndexEntry{}
	}
	dropNamed(files, named)
	maps.Copy(files, indexed)
	if len(sc.held) > 0 {
		return localScan{}, errWholeScan
	}
	slices.SortStableFunc(sc.skipped, func(a, b Skipped) int { return strings.Compare(a.Key, b.Key) })
	sc.skipped = slices.CompactFunc(sc.skipped, func(a, b Skipped) bool { return a.Key == b.Key })
	sc.files = files
	return sc, nil
}

// dropNamed deletes from files the entries at or under a name of named.
// A name that is a key of files was a file at that scan, so nothing of
// files lies under it: when every name is one, each is deleted alone, and
// a save's scan costs what it names, not what the directory holds.
// Otherwise every key is tested (coveredBy).
func dropNamed(files map[string]IndexEntry, named map[string]bool) {
	for n := range named {
		if _, isFile := files[n]; !isFile {
			maps.DeleteFunc(files, func(k string, _ IndexEntry) bool { return coveredBy(k, named) })
			return
		}
	}
	for n := range named {
		delete(files, n)
	}
}

// coveredBy reports whether k or one of its parent directories is in
// named.
func coveredBy(k string, named map[string]bool) bool {
	for p := k; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if named[p] {
			return true
		}
	}
	return false
}

// lookAt finds the candidate files at or under each of names (sorted),
// as walkFrom would find them, adding what cannot sync to sc.
func (t *teamDir) lookAt(names []string, sc *localScan) ([]localFile, error) {
	var found []localFile
	seen := map[string]bool{}
	for _, n := range names {
		fi, err := t.root.Lstat(n)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, errWholeScan
		}
		walked, err := t.walked(n)
		if err != nil || !walked {
			if err != nil {
				return nil, err
			}
			continue
		}
		if !fi.IsDir() {
			if !seen[n] {
				seen[n] = true
				found, sc.skipped = t.candidate(n, fs.FileInfoToDirEntry(fi), found, sc.skipped)
			}
			continue
		}
		files, sub, err := t.walkFrom(n)
		if err != nil {
			return nil, errWholeScan
		}
		sc.held = append(sc.held, sub.held...)
		sc.skipped = append(sc.skipped, sub.skipped...)
		for _, f := range files {
			if !seen[f.key] {
				seen[f.key] = true
				found = append(found, f)
			}
		}
	}
	return found, nil
}

// walked reports whether the whole directory's walk enters every parent
// directory of key: each is a directory (not a link to one), not hidden,
// and not one a personal lane passes over.
func (t *teamDir) walked(key string) (bool, error) {
	for i := range len(key) {
		if key[i] != '/' {
			continue
		}
		dir := key[:i]
		if api.IsHiddenKey(path.Base(dir)) || t.skips(dir, true) {
			return false, nil
		}
		fi, err := t.root.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, errWholeScan
		}
		if !fi.IsDir() {
			return false, nil
		}
	}
	return true, nil
}
