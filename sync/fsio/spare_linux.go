package fsio

import (
	"os"

	"golang.org/x/sys/unix"
)

// sparesUsable: a pull's spares are kept only where ReadSettledAlone can
// tell that no other process has a displaced file open at all.
const sparesUsable = true

const noFollow = unix.O_NOFOLLOW

// fileShape is what a spare must share with a new temp file of its
// directory to stand in for one.
type fileShape struct {
	known    bool
	mode     uint32
	uid, gid uint32
}

// shapeOf returns f's shape, and false when f is not a regular file with
// one link and no extended attributes.
func shapeOf(f *os.File) (fileShape, bool) {
	var st unix.Stat_t
	var shape fileShape
	var ok bool
	rc, err := f.SyscallConn()
	if err != nil {
		return shape, false
	}
	err = rc.Control(func(fd uintptr) {
		if unix.Fstat(int(fd), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 {
			return
		}
		n, err := unix.Flistxattr(int(fd), nil)
		if err != nil && err != unix.ENOTSUP || n != 0 {
			return
		}
		shape, ok = fileShape{known: true, mode: st.Mode, uid: st.Uid, gid: st.Gid}, true
	})
	return shape, ok && err == nil
}
