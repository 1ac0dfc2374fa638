package memsync

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"
)

// errNoAtomicRename is returned by exchange (and used inside
// renameNoReplace) where the OS or file system has no atomic primitive.
var errNoAtomicRename = errors.New("atomic exchange not supported here")

// errStillOpen is returned by readSettled when another process keeps the
// file open for writing, so its content is not final yet.
var errStillOpen = errors.New("file is still open for writing")

// maxSwapTries bounds how often swapIn decides again when the user
// creates or removes the target under it.
const maxSwapTries = 8

// asidePrefix names a local file the engine moved out of the way to judge
// it: it may hold a user's edit, so after a crash the sweep keeps it as a
// conflict copy unless its content is a known version.
const asidePrefix = tempPrefix + "aside-"

// asideName returns a fresh aside name for name: the prefix, 16 random hex
// digits, "-" and as much of name as fits in one file name.
func asideName(name string) string {
	head := asidePrefix + randomHex() + "-"
	room := maxNameBytes - len(head)
	if len(name) > room {
		name = name[:room]
		for !utf8.ValidString(name) {
			name = name[:len(name)-1]
		}
	}
	return head + name
}

// asideTarget returns the name an aside file was moved from, whether that
// name is whole (a long name is cut to fit), and whether aside is an aside
// name at all.
func asideTarget(aside string) (name string, whole, ok bool) {
	rest, ok := strings.CutPrefix(aside, asidePrefix)
	if !ok || len(rest) < 18 || !isHex(rest[:16]) || rest[16] != '-' {
		return "", false, false
	}
	return rest[17:], len(aside) < maxNameBytes, true
}

// swapIn puts data at name in dir without losing what was there: a new
// name is renamed in without replacing (RENAME_NOREPLACE); an existing
// file is exchanged with the new one (RENAME_EXCHANGE), so the file that
// was at name, whatever a save made of it up to that instant, ends up
// under the aside name swapIn returns, for the caller to judge. Where no
// exchange exists it renames over name and returns "". A target that is
// not a regular file is errNotRegular and left alone.
func swapIn(dir *os.Root, name string, data []byte) (aside string, err error) {
	cur, err := createTemp(dir, data, 0o644, nil)
	if err != nil {
		return "", err
	}
	defer func() {
		if cur != "" {
			dir.Remove(cur)
		}
	}()
	for range maxSwapTries {
		fi, err := dir.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			err = renameNoReplace(dir, cur, name)
			if errors.Is(err, fs.ErrExist) {
				continue // the user created it meanwhile: decide again
			}
			if err == nil {
				cur = ""
			}
			return "", err
		case err != nil:
			return "", err
		case !fi.Mode().IsRegular():
			return "", fmt.Errorf("%w (%s)", errNotRegular, fi.Mode().Type())
		}
		if !strings.HasPrefix(cur, asidePrefix) {
			next := asideName(name)
			if err := dir.Rename(cur, next); err != nil {
				return "", err
			}
			cur = next
		}
		err = exchange(dir, cur, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // the user removed it meanwhile: decide again
		case errors.Is(err, errNoAtomicRename):
			err = dir.Rename(cur, name)
			if err == nil {
				cur = ""
			}
			return "", err
		case err != nil:
			return "", err
		}
		aside, cur = cur, ""
		return aside, nil
	}
	return "", fmt.Errorf("%s kept changing while it was replaced", name)
}

// renameIfAbsent renames from to to unless to exists. The check and the
// rename are two steps: a file created between them is replaced. It is
// used only where the OS offers no atomic no-replace rename.
func renameIfAbsent(dir *os.Root, from, to string) error {
	if _, err := dir.Lstat(to); err == nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return dir.Rename(from, to)
}

// createTemp writes data to a new temp file in dir, fsynced, and returns
// its name. beforeWrite, when set, runs once the file exists. On any
// failure the temp file is removed.
func createTemp(dir *os.Root, data []byte, perm os.FileMode, beforeWrite func() error) (string, error) {
	name := tempPrefix + randomHex() + ".tmp"
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return "", fmt.Errorf("create temp file: %w", err)
	}
	if beforeWrite != nil {
		err = beforeWrite()
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		dir.Remove(name)
		return "", fmt.Errorf("write temp file: %w", err)
	}
	return name, nil
}

func readAll(f *os.File) ([]byte, error) {
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return data, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9') && !('a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
