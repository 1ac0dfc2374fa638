package memsync

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/server/api"
)

// MaxFileBytes is the largest file that syncs (the server's entry cap).
const MaxFileBytes = api.DefaultMaxEntryBytes

// racyWindow is how close to a file's mtime a hash may be taken before a
// later write could go unnoticed by size and mtime alone.
const racyWindow = 2 * time.Second

// scanWorkers bounds how many files scanLocal stats and hashes at once.
const scanWorkers = 8

// scanLocal lists the syncable files of the team directory with their
// hashes, reusing idx for files whose size, mtime and inode are unchanged.
// Files that look syncable but cannot sync are returned as skipped. The
// walk is sequential; the files found are hashed concurrently.
func (t *teamDir) scanLocal(idx map[string]IndexEntry, now time.Time) (map[string]IndexEntry, []Skipped, error) {
	found, skipped, err := t.walkLocal()
	if err != nil {
		return nil, nil, err
	}
	type indexed struct {
		e      IndexEntry
		reason string
	}
	out := make([]indexed, len(found))
	var g errgroup.Group
	g.SetLimit(scanWorkers)
	for i, f := range found {
		g.Go(func() error {
			e, reason, err := t.indexFile(f.key, f.d, idx[f.key], now)
			out[i] = indexed{e, reason}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, fmt.Errorf("scan team directory: %w", err)
	}
	files := make(map[string]IndexEntry, len(found))
	for i, f := range found {
		if out[i].reason != "" {
			skipped = append(skipped, Skipped{Key: f.key, Reason: out[i].reason})
			continue
		}
		files[f.key] = out[i].e
	}
	return files, skipped, nil
}

// localFile is a candidate file found by walkLocal.
type localFile struct {
	key string
	d   fs.DirEntry
}

// walkLocal lists the files that look syncable (not hidden, .md or .txt),
// and skips those that cannot sync before they are read.
func (t *teamDir) walkLocal() ([]localFile, []Skipped, error) {
	var found []localFile
	var skipped []Skipped
	err := fs.WalkDir(t.root.FS(), ".", func(key string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if key == "." {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !(strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".txt")) {
			return nil
		}
		if reason := localProblem(key, d); reason != "" {
			skipped = append(skipped, Skipped{Key: key, Reason: reason})
			return nil
		}
		found = append(found, localFile{key: key, d: d})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("scan team directory: %w", err)
	}
	return found, skipped, nil
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

// indexFile returns the index entry of one file, hashing it only when the
// cached entry does not match its size, mtime and inode.
func (t *teamDir) indexFile(key string, d fs.DirEntry, cached IndexEntry, now time.Time) (IndexEntry, string, error) {
	fi, err := d.Info()
	if errors.Is(err, fs.ErrNotExist) {
		return IndexEntry{}, "removed while scanning", nil
	}
	if err != nil {
		return IndexEntry{}, "", fmt.Errorf("stat %s: %w", key, err)
	}
	if fi.Size() > MaxFileBytes {
		return IndexEntry{}, fmt.Sprintf("%d bytes, over the %d byte limit", fi.Size(), MaxFileBytes), nil
	}
	e := IndexEntry{Size: fi.Size(), MtimeNs: fi.ModTime().UnixNano(), Inode: inode(fi)}
	if cached.Hash != "" && !cached.Racy && cached.Size == e.Size && cached.MtimeNs == e.MtimeNs && cached.Inode == e.Inode {
		return cached, "", nil
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
	e.Hash = api.EntryChecksum(string(data))
	e.Racy = now.Sub(fi.ModTime()) < racyWindow
	return e, "", nil
}
