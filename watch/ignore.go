package watch

import "strings"

// ignoredSuffixes are the endings of editor swap, backup and partial-download
// files: vim (.swp, .swx, .swo), JetBrains safe-write, browsers and download
// managers, and generic temporary files.
var ignoredSuffixes = []string{
	"~",
	".swp", ".swx", ".swo",
	".tmp", ".temp",
	".bak", ".orig",
	".crdownload", ".part", ".partial", ".download",
	"___jb_tmp___", "___jb_old___",
}

// Ignored reports whether a base file or directory name is noise that never
// syncs: hidden names (which also covers the sync engine's own atomic temp
// files and emacs lock files ".#name"), editor swap and backup files, vim's
// "4913" write probe and emacs auto-save files "#name#".
func Ignored(name string) bool {
	if name == "" || strings.HasPrefix(name, ".") {
		return true
	}
	if name == "4913" {
		return true
	}
	if len(name) >= 2 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#") {
		return true
	}
	lower := strings.ToLower(name)
	for _, s := range ignoredSuffixes {
		if strings.HasSuffix(lower, s) {
			return true
		}
	}
	return false
}

// IgnoredPath reports whether a slash-separated path relative to the watched
// directory has any ignored segment.
func IgnoredPath(rel string) bool {
	for seg := range strings.SplitSeq(rel, "/") {
		if Ignored(seg) {
			return true
		}
	}
	return false
}
