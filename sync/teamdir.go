package memsync

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/fsio"
)

// blockedError names the local path that keeps a key from being written;
// it is an fsio.ErrNotRegular. link is set when that path is a symlink.
type blockedError struct {
	path, why string
	link      bool
}

func (e *blockedError) Error() string        { return e.path + " " + e.why }
func (e *blockedError) Is(target error) bool { return target == fsio.ErrNotRegular }

// TeamDirMode is the mode of a team directory teammemd creates, and of
// the parents it creates for it: the notes are the user's own until they
// are shared, so no other user of the machine may list or read them. A
// configured checkout's team directory, a discovered project's and one
// made for a first note alike.
const TeamDirMode = 0o700

// createTeamDir creates a missing team directory, for a first sync or a
// first note.
func createTeamDir(dir string) error {
	if err := os.MkdirAll(dir, TeamDirMode); err != nil {
		return fmt.Errorf("create team directory: %w", err)
	}
	return nil
}

// teamDir is the team directory, reached only through an os.Root so that no
// symlink inside it can lead a write outside it.
type teamDir struct {
	path            string
	root            *os.Root
	caseInsensitive bool
	// racy is the file system's racy window (see racyWindow); zero
	// until prepareDir learns it.
	racy time.Duration
	// lane is set for a personal lane's directory: only the files it
	// holds are the engine's.
	lane *LaneFiles
	// warm is what Warm read ahead, which a scan trusts as it trusts the
	// index (see indexFile): taken by the session's first scan that finds
	// any, and what its push's checks take their content from.
	warm map[string]warmFile
}

// openTeamDir opens the team directory, which must exist. Whether its
// file system ignores case is learned once per engine (prepareDir).
func openTeamDir(dir string) (*teamDir, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open team directory: %w", err)
	}
	return &teamDir{path: dir, root: root}, nil
}

func (t *teamDir) close() error { return t.root.Close() }

// racyWindow is how close to a file's mtime a hash or a stat of it may be
// taken before a later write of the same size could go unnoticed: the file
// system's window, or the widest while it is not known.
func (t *teamDir) racyWindow() time.Duration {
	if t.racy > 0 {
		return t.racy
	}
	return fsio.SlowRacyWindow
}

// racyAt reports whether a hash taken at now of a file last modified at
// mtime is too close to mtime to be trusted by the file's stat.
func (t *teamDir) racyAt(mtime, now time.Time) bool { return now.Sub(mtime) < t.racyWindow() }

// skips reports whether the walk of t passes over p: in a personal
// lane's directory, what its LaneFiles leave out.
func (t *teamDir) skips(p string, dir bool) bool {
	switch {
	case t.lane == nil:
		return false
	case dir:
		return t.lane.skipsDir(p)
	}
	return !t.lane.Holds(p)
}

// foldKey is the name a case-insensitive (and normalisation-insensitive)
// file system sees for key.
func foldKey(key string) string { return strings.ToLower(norm.NFC.String(key)) }

// openDir opens the directory that holds key, creating it if needed, as a
// root of its own: the files of one directory are then written with no
// path walk each. A parent that is a symlink or not a directory is
// fsio.ErrNotRegular: the engine never writes through a link.
func (t *teamDir) openDir(key string) (*os.Root, error) {
	dir := path.Dir(key)
	if err := t.checkParents(key); err != nil {
		return nil, err
	}
	if dir != "." {
		if err := t.root.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create directory for %s: %w", key, err)
		}
	}
	d, err := t.root.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open directory for %s: %w", key, err)
	}
	return d, nil
}

// syncDirs fsyncs each directory once, and every new directory's parents up
// to the team directory, so the entries written into them survive a crash.
func (t *teamDir) syncDirs(dirs map[string]bool) error {
	all := map[string]bool{}
	for d := range dirs {
		for ; d != "."; d = path.Dir(d) {
			all[d] = true
		}
		all["."] = true
	}
	list := slices.Sorted(maps.Keys(all))
	for _, d := range list {
		if err := t.syncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// checkParents refuses a key whose parent directories include a symlink or
// a non-directory: the engine never writes through a link, even one that
// stays inside the team directory.
func (t *teamDir) checkParents(key string) error {
	segs := strings.Split(key, "/")
	for i := 1; i < len(segs); i++ {
		p := strings.Join(segs[:i], "/")
		fi, err := t.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("stat %s: %w", p, err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return &blockedError{path: p, why: "is a symlink, which the engine never writes through", link: true}
		case !fi.IsDir():
			return &blockedError{path: p, why: "is a file here, not a directory"}
		}
	}
	return nil
}

// openParent opens the existing directory that holds key, refusing one
// reached through a symlink or a file.
func (t *teamDir) openParent(key string) (*os.Root, error) {
	if err := t.checkParents(key); err != nil {
		return nil, err
	}
	d, err := t.root.OpenRoot(path.Dir(key))
	if err != nil {
		return nil, fmt.Errorf("open directory for %s: %w", key, err)
	}
	return d, nil
}

// read returns the content of key's file, which must be a regular file.
func (t *teamDir) read(key string) ([]byte, error) {
	if err := t.checkRegular(key); err != nil {
		return nil, err
	}
	if err := readFault(t.path, key); err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	data, err := t.root.ReadFile(key)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return data, nil
}

// checkRegular reports fs.ErrNotExist for a missing key and fsio.ErrNotRegular
// for anything but a regular file.
func (t *teamDir) checkRegular(key string) error {
	fi, err := t.root.Lstat(key)
	if err != nil {
		return fmt.Errorf("stat %s: %w", key, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", key, fsio.ErrNotRegular, fi.Mode().Type())
	}
	return nil
}

// syncDir fsyncs dir, a directory of the team directory.
func (t *teamDir) syncDir(dir string) error { return fsio.SyncDir(t.root, dir) }

// fileNameProblem says why key cannot be a file name on goos, or "".
func fileNameProblem(key, goos string) string {
	for _, seg := range strings.Split(key, "/") {
		if len(seg) > fsio.MaxNameBytes {
			return "path segment longer than 255 bytes"
		}
		if goos != "windows" {
			continue
		}
		if strings.ContainsAny(seg, `<>:"|?*`) {
			return `path segment holds one of <>:"|?* (not allowed on Windows)`
		}
		if windowsReserved(seg) {
			return "path segment is a reserved fsio.Device name on Windows"
		}
	}
	return ""
}

// windowsReserved reports whether seg names a DOS device (CON, NUL, COM1,
// ...), with or without an extension.
func windowsReserved(seg string) bool {
	base, _, _ := strings.Cut(seg, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		return base[3] >= '0' && base[3] <= '9'
	}
	return false
}

// entrySum is the entry checksum of value: the one place the engine
// hashes a note.
func entrySum(value []byte) string {
	countHash(value)
	return api.EntryChecksumBytes(value)
}

// entryStringSum is entrySum of a value held as a string.
func entryStringSum(value string) string {
	countHashString(value)
	return api.EntryChecksum(value)
}
