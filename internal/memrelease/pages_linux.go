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
	var exe unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &exe); err != nil {
		return
	}
	data, err := os.ReadFile(smapsPath)
	if err != nil {
		return
	}
	for _, m := range droppable(parseSmaps(string(data)), fileID{dev: uint64(exe.Dev), inode: uint64(exe.Ino)}) {
		// Errors are ignored: the mapping then stays resident.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED)
	}
}

// droppable picks the mappings of file exe that are private, not writable
// and hold no private copies of their pages.
func droppable(maps []mapping, exe fileID) []mapping {
	var out []mapping
	for _, m := range maps {
		if m.file == exe && m.perms[1] != 'w' && m.perms[3] == 'p' && m.anonKB == 0 && m.rssKB > 0 {
			out = append(out, m)
		}
	}
	return out
}
