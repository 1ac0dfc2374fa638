package fsio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"
)

// ErrNoAtomicRename is returned by Exchange (and used inside
// RenameNoReplace) where the OS or file system has no atomic primitive.
var ErrNoAtomicRename = errors.New("atomic Exchange not supported here")

// ErrStillOpen is returned by ReadSettled when another process keeps the
// file open for writing, so its content is not final yet.
var ErrStillOpen = errors.New("file is still open for writing")

// maxSwapTries bounds how often SwapIn decides again when the user
// creates or removes the target under it.
const maxSwapTries = 8

// AsidePrefix names a local file the engine moved out of the way to judge
// it: it may hold a user's edit, so after a crash the sweep keeps it as a
// conflict copy unless its content is a known version.
const AsidePrefix = TempPrefix + "aside-"

// AsideName returns a fresh aside name for name: the prefix, 16 random hex
// digits, "-" and as much of name as fits in one file name.
func AsideName(name string) string {
	head := AsidePrefix + RandomHex() + "-"
	room := MaxNameBytes - len(head)
	if len(name) > room {
		name = name[:room]
		for !utf8.ValidString(name) {
			name = name[:len(name)-1]
		}
	}
	return head + name
}

// AsideTarget returns the name an aside file was moved from, whether that
// name is whole (a long name is cut to fit), and whether aside is an aside
// name at all.
func AsideTarget(aside string) (name string, whole, ok bool) {
	rest, ok := strings.CutPrefix(aside, AsidePrefix)
	if !ok || len(rest) < 18 || !IsHex(rest[:16]) || rest[16] != '-' {
		return "", false, false
	}
	return rest[17:], len(aside) < MaxNameBytes, true
}

// SwapIn puts data at name in dir without losing what was there: a new
// name is renamed in without replacing (RENAME_NOREPLACE); an existing
// file is exchanged with the new one (RENAME_EXCHANGE), so the file that
// was at name, whatever a save made of it up to that instant, ends up
// under the aside name SwapIn returns, for the caller to judge. Where no
// exchange exists it renames over name and returns "". A target that is
// not a regular file is ErrNotRegular and left alone. The content is
// written into one of spares when it has one (nil has none), else into a
// new file.
func SwapIn(dir *os.Root, name string, data []byte, spares *Spares) (aside string, err error) {
	var cur string
	if spares != nil {
		cur, err = spares.CreateTemp(data, 0o644)
	} else {
		cur, err = CreateTemp(dir, data, 0o644, nil)
	}
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
			err = RenameNoReplace(dir, cur, name)
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
			return "", fmt.Errorf("%w (%s)", ErrNotRegular, fi.Mode().Type())
		}
		if !strings.HasPrefix(cur, AsidePrefix) {
			next := AsideName(name)
			if err := dir.Rename(cur, next); err != nil {
				return "", err
			}
			cur = next
		}
		err = Exchange(dir, cur, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // the user removed it meanwhile: decide again
		case errors.Is(err, ErrNoAtomicRename):
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
