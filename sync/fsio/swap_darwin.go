package fsio

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Exchange swaps the files named a and b in dir in one step
// (renameatx_np RENAME_SWAP): neither name is ever missing and nothing is
// overwritten. It returns ErrNoAtomicRename where the file system lacks it.
func Exchange(dir *os.Root, a, b string) error {
	return renameAtx(dir, a, b, unix.RENAME_SWAP)
}

// RenameNoReplace renames from to to in dir unless to exists
// (renameatx_np RENAME_EXCL), failing with fs.ErrExist then.
func RenameNoReplace(dir *os.Root, from, to string) error {
	err := renameAtx(dir, from, to, unix.RENAME_EXCL)
	if errors.Is(err, ErrNoAtomicRename) {
		return renameIfAbsent(dir, from, to)
	}
	return err
}

func renameAtx(dir *os.Root, from, to string, flags uint32) error {
	err := withDirFD(dir, func(fd int) error { return unix.RenameatxNp(fd, from, fd, to, flags) })
	switch {
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOTSUP):
		return ErrNoAtomicRename
	case err != nil:
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// ReadSettled reads name in dir. macOS has no file leases: an editor that
// opened the file before the engine moved it and writes into it only
// after the engine read it loses that write (docs/RELIABILITY.md, Write path).
func ReadSettled(dir *os.Root, name string) ([]byte, error) {
	f, err := dir.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f)
}
