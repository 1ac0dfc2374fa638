package memrelease

import (
	"strconv"
	"strings"
)

// fileID names a file by device and inode, which a mapping keeps when the
// file is renamed or replaced.
type fileID struct {
	dev, inode uint64
}

// mapping is one entry of /proc/<pid>/smaps.
type mapping struct {
	start, end uintptr
	perms      string // "r-xp": read, write, execute, private or shared
	file       fileID
	path       string // the file's path, "" for an anonymous mapping
	rssKB      int64  // resident
	anonKB     int64  // resident private copies (Anonymous:)
}

// parseSmaps reads the mappings of an smaps file. Lines it cannot read are
// skipped: a mapping it misreads is only left resident.
func parseSmaps(text string) []mapping {
	var maps []mapping
	for _, line := range strings.Split(text, "\n") {
		if m, ok := parseHeader(line); ok {
			maps = append(maps, m)
			continue
		}
		if len(maps) == 0 {
			continue
		}
		cur := &maps[len(maps)-1]
		if kb, ok := fieldKB(line, "Rss:"); ok {
			cur.rssKB = kb
		} else if kb, ok := fieldKB(line, "Anonymous:"); ok {
			cur.anonKB = kb
		}
	}
	return maps
}

// parseHeader reads a mapping's first line:
// "00400000-01462000 r-xp 00000000 fe:00 10298368   /usr/bin/teammemd".
func parseHeader(line string) (mapping, bool) {
	f := strings.Fields(line)
	if len(f) < 5 || len(f[1]) != 4 {
		return mapping{}, false
	}
	lo, hi, ok := strings.Cut(f[0], "-")
	if !ok {
		return mapping{}, false
	}
	start, err1 := strconv.ParseUint(lo, 16, 64)
	end, err2 := strconv.ParseUint(hi, 16, 64)
	dev, err3 := parseDev(f[3])
	inode, err4 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || end < start {
		return mapping{}, false
	}
	m := mapping{start: uintptr(start), end: uintptr(end), perms: f[1], file: fileID{dev: dev, inode: inode}}
	if len(f) > 5 {
		// The path is the rest of the line; it may hold spaces.
		m.path = strings.TrimSpace(line[strings.Index(line, f[5]):])
	}
	return m, true
}

// parseDev reads "major:minor" in hex into the encoding of stat's st_dev
// on Linux (the glibc makedev layout).
func parseDev(s string) (uint64, error) {
	maj, mnr, _ := strings.Cut(s, ":")
	major, err := strconv.ParseUint(maj, 16, 32)
	if err != nil {
		return 0, err
	}
	minor, err := strconv.ParseUint(mnr, 16, 32)
	if err != nil {
		return 0, err
	}
	return (major&0xfff)<<8 | (major&^0xfff)<<32 | minor&0xff | (minor&^0xff)<<12, nil
}

// fieldKB reads "Name:   123 kB".
func fieldKB(line, name string) (int64, bool) {
	rest, ok := strings.CutPrefix(line, name)
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	n, err := strconv.ParseInt(num, 10, 64)
	return n, err == nil
}
