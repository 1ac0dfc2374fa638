package memrelease

import (
	"os"

	"golang.org/x/sys/unix"
)

// smapsPath lists the process's mappings with their resident sizes.
const smapsPath = "/proc/self/smaps"

// dropExecutablePages tells the kernel the executable's read-only pages are
// not needed (MADV_DONTNEED). A mapping holding private copies of its
// pages (a position-independent executable's relocated data, a debugger's
// breakpoints) is left alone: dropping would lose those copies. Errors
// leave the pages resident, which costs memory and nothing else.
func dropExecutablePages() {
	exe, err := executable()
	if err != nil {
		return
	}
	data, err := os.ReadFile(smapsPath)
	if err != nil {
		return
	}
	for _, m := range droppable(parseSmaps(string(data)), exe) {
		// Errors are ignored: the mapping then stays resident.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED)
	}
}

// executableFile names the running executable: its device and inode, and
// its path as /proc/self/maps shows it.
type executableFile struct {
	id   fileID
	path string
}

// executable finds the running executable.
func executable() (executableFile, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		return executableFile{}, err
	}
	path, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return executableFile{}, err
	}
	return executableFile{id: fileID{dev: uint64(st.Dev), inode: uint64(st.Ino)}, path: path}, nil
}

// of reports whether m maps the executable: by device and inode or, where
// the maps show another device than stat (overlayfs), by path.
func (e executableFile) of(m mapping) bool {
	return m.file == e.id || (m.path != "" && m.path == e.path)
}

// droppable picks the mappings of the executable that are private, not
// writable and hold no private copies of their pages.
func droppable(maps []mapping, exe executableFile) []mapping {
	var out []mapping
	for _, m := range maps {
		if exe.of(m) && m.perms[1] != 'w' && m.perms[3] == 'p' && m.anonKB == 0 && m.rssKB > 0 {
			out = append(out, m)
		}
	}
	return out
}
