package memrelease

import (
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

const sampleSmaps = `00400000-01462000 r-xp 00000000 fe:00 10298368                           /usr/bin/teammemd
Size:              16776 kB
Rss:               12660 kB
Anonymous:             0 kB
01462000-0255e000 r--p 01062000 fe:00 10298368                           /usr/bin/teammemd
Rss:               13036 kB
Anonymous:             4 kB
0255e000-0268e000 rw-p 0215e000 fe:00 10298368                           /usr/bin/teammemd
Rss:                 696 kB
Anonymous:           120 kB
not a header line
7f7a5b9b3000-7f7a5bb09000 r-xp 00026000 103:02 326269                     /usr/lib/x86_64-linux-gnu/libc.so.6
Rss:                 756 kB
Anonymous:             0 kB
7ffc44ff6000-7ffc45017000 rw-p 00000000 00:00 0                          [stack]
Rss:                  16 kB
Anonymous:            16 kB
7f0000000000-7f0000001000 r--p 00000000 00:2d 7                          /home/a b/x (deleted)
Rss:                   4 kB
`

func TestParseSmaps(t *testing.T) {
	exe := fileID{dev: unix.Mkdev(0xfe, 0), inode: 10298368}
	libc := fileID{dev: unix.Mkdev(0x103, 2), inode: 326269}
	want := []mapping{
		{start: 0x400000, end: 0x1462000, perms: "r-xp", file: exe, path: "/usr/bin/teammemd", rssKB: 12660},
		{start: 0x1462000, end: 0x255e000, perms: "r--p", file: exe, path: "/usr/bin/teammemd", rssKB: 13036, anonKB: 4},
		{start: 0x255e000, end: 0x268e000, perms: "rw-p", file: exe, path: "/usr/bin/teammemd", rssKB: 696, anonKB: 120},
		{start: 0x7f7a5b9b3000, end: 0x7f7a5bb09000, perms: "r-xp", file: libc, path: "/usr/lib/x86_64-linux-gnu/libc.so.6", rssKB: 756},
		{start: 0x7ffc44ff6000, end: 0x7ffc45017000, perms: "rw-p", path: "[stack]", rssKB: 16, anonKB: 16},
		{start: 0x7f0000000000, end: 0x7f0000001000, perms: "r--p", file: fileID{dev: unix.Mkdev(0, 0x2d), inode: 7}, path: "/home/a b/x (deleted)", rssKB: 4},
	}
	got := parseSmaps(sampleSmaps)
	if len(got) != len(want) {
		t.Fatalf("parseSmaps() = %d mappings, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("parseSmaps()[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseHeaderRejects(t *testing.T) {
	for _, line := range []string{
		"",
		"Rss:               12660 kB",
		"00400000 r-xp 00000000 fe:00 1 /bin/x",
		"00400000-zz r-xp 00000000 fe:00 1 /bin/x",
		"01462000-00400000 r-xp 00000000 fe:00 1 /bin/x",
		"00400000-01462000 r-xp 00000000 fe 1 /bin/x",
		"00400000-01462000 r-xp 00000000 fe:00 -1 /bin/x",
		"00400000-01462000 rx 00000000 fe:00 1 /bin/x",
	} {
		if m, ok := parseHeader(line); ok {
			t.Errorf("parseHeader(%q) = %+v, true, want false", line, m)
		}
	}
}

// Only the executable's private read-only mappings without private copies
// of their pages are dropped; the executable is found by device and inode,
// or by path where the two differ (overlayfs).
func TestDroppable(t *testing.T) {
	maps := parseSmaps(sampleSmaps)
	tests := []struct {
		name string
		exe  executableFile
		want []uintptr
	}{
		{"device and inode", executableFile{id: fileID{dev: unix.Mkdev(0xfe, 0), inode: 10298368}, path: "/elsewhere"}, []uintptr{0x400000}},
		{"path", executableFile{id: fileID{dev: 1, inode: 2}, path: "/usr/bin/teammemd"}, []uintptr{0x400000}},
		{"path with a space, deleted", executableFile{path: "/home/a b/x (deleted)"}, []uintptr{0x7f0000000000}},
		{"another file", executableFile{id: fileID{dev: 1, inode: 2}, path: "/usr/bin/other"}, nil},
	}
	for _, tt := range tests {
		var got []uintptr
		for _, m := range droppable(maps, tt.exe) {
			got = append(got, m.start)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: droppable() starts = %#x, want %#x", tt.name, got, tt.want)
		}
	}
	exe := executableFile{id: fileID{dev: 1, inode: 2}}
	shared := []mapping{{start: 1, end: 2, perms: "r--s", file: exe.id, rssKB: 4}}
	if got := droppable(shared, exe); len(got) != 0 {
		t.Errorf("droppable(shared mapping) = %+v, want none", got)
	}
}

func FuzzParseSmaps(f *testing.F) {
	f.Add(sampleSmaps)
	f.Add("00400000-01462000 r-xp 00000000 fe:00 1\nRss: 4 kB\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, m := range parseSmaps(text) {
			if m.end < m.start || len(m.perms) != 4 {
				t.Errorf("parseSmaps(%q) gave %+v", text, m)
			}
		}
	})
}
