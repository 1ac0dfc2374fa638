package fsio

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Exchange swaps the files named a and b in dir in one step
// (renameat2 RENAME_EXCHANGE): neither name is ever missing and nothing is
// overwritten. It returns ErrNoAtomicRename where the file system lacks it.
func Exchange(dir *os.Root, a, b string) error {
	return renameAt2(dir, a, b, unix.RENAME_EXCHANGE)
}

// RenameNoReplace renames from to to in dir unless to exists
// (renameat2 RENAME_NOREPLACE), failing with fs.ErrExist then.
func RenameNoReplace(dir *os.Root, from, to string) error {
	err := renameAt2(dir, from, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, ErrNoAtomicRename) {
		return renameIfAbsent(dir, from, to)
	}
	return err
}

func renameAt2(dir *os.Root, from, to string, flags uint) error {
	err := withDirFD(dir, func(fd int) error { return unix.Renameat2(fd, from, fd, to, flags) })
	switch {
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return ErrNoAtomicRename
	case err != nil:
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// settleTries and settleFirstWait bound how long ReadSettled waits for a
// writer to close a file: about half a second in all.
const (
	settleTries     = 10
	settleFirstWait = time.Millisecond
	settleMaxWait   = 100 * time.Millisecond
)

// ReadSettled reads name in dir once no process holds it open for writing:
// it takes a read lease (F_SETLEASE), which the kernel grants only then, so
// an editor that opened the file before the engine moved it and writes
// into it afterwards is waited for instead of losing its write. It returns
// ErrStillOpen if a writer keeps the file open past the wait. Where leases
// are not available (another user's file, a file system without them) it
// reads the file as it is.
func ReadSettled(dir *os.Root, name string) ([]byte, error) {
	data, _, err := ReadSettledAlone(dir, name)
	return data, err
}

// ReadSettledAlone is ReadSettled, and reports whether no other process
// had the file open at all, not even for reading, while it read: it tries a
// write lease (F_WRLCK) first, which the kernel grants only then, and
// waits for writers under a read lease as ReadSettled does otherwise.
func ReadSettledAlone(dir *os.Root, name string) ([]byte, bool, error) {
	f, err := dir.Open(name)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if setLease(f, unix.F_WRLCK) == nil {
		defer setLease(f, unix.F_UNLCK)
		data, err := ReadAll(f)
		return data, err == nil, err
	}
	wait := settleFirstWait
	for range settleTries {
		err = setLease(f, unix.F_RDLCK)
		if !errors.Is(err, unix.EAGAIN) {
			break
		}
		time.Sleep(wait)
		wait = min(2*wait, settleMaxWait)
	}
	switch {
	case errors.Is(err, unix.EAGAIN):
		return nil, false, ErrStillOpen
	case err == nil:
		defer setLease(f, unix.F_UNLCK)
	}
	data, err := ReadAll(f)
	return data, false, err
}

func setLease(f *os.File, kind int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	if err := rc.Control(func(fd uintptr) { _, opErr = unix.FcntlInt(fd, unix.F_SETLEASE, kind) }); err != nil {
		return err
	}
	return opErr
}
