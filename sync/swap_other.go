//go:build !linux && !darwin

package memsync

import "os"

// exchange is not available here: the write path falls back to checking
// the file and then renaming over it, which leaves a window in which a
// save is lost (docs/RELIABILITY.md, Write path).
func exchange(*os.Root, string, string) error { return errNoAtomicRename }

// renameNoReplace renames from to to in dir unless to exists; with no
// atomic primitive here, it checks first, leaving a short window.
func renameNoReplace(dir *os.Root, from, to string) error {
	return renameIfAbsent(dir, from, to)
}

// readSettled reads name in dir as it is: there are no file leases here.
func readSettled(dir *os.Root, name string) ([]byte, error) {
	f, err := dir.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f)
}
