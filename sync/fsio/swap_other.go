//go:build !linux && !darwin

package fsio

import "os"

// Exchange is not available here: the write path falls back to checking
// the file and then renaming over it, which leaves a window in which a
// save is lost (docs/RELIABILITY.md, Write path).
func Exchange(*os.Root, string, string) error { return ErrNoAtomicRename }

// RenameNoReplace renames from to to in dir unless to exists; with no
// atomic primitive here, it checks first, leaving a short window.
func RenameNoReplace(dir *os.Root, from, to string) error {
	return renameIfAbsent(dir, from, to)
}

// ReadSettled reads name in dir as it is: there are no file leases here.
func ReadSettled(dir *os.Root, name string) ([]byte, error) {
	f, err := dir.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f)
}
