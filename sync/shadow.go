package memsync

import (
	"fmt"
	"path"
	"slices"
)

// unshadowed returns keys but the new ones that cannot be sent beside
// what the server will hold once deletes are sent (see shadowed), which it
// reports as refused.
func (s *session) unshadowed(keys, deletes []string) []string {
	var gone, dirs map[string]bool // built at the first new key
	return slices.DeleteFunc(keys, func(k string) bool {
		if _, onServer := s.st.ServerChecksums[k]; onServer {
			return false
		}
		if dirs == nil {
			gone = make(map[string]bool, len(deletes))
			for _, d := range deletes {
				gone[d] = true
			}
			dirs = s.serverDirs(gone)
		}
		reason := s.shadowed(k, gone, dirs)
		if reason != "" {
			s.refused(k, reason)
		}
		return reason != ""
	})
}

// serverDirs are the directories of the keys the server holds but for
// the ones gone.
func (s *session) serverDirs(gone map[string]bool) map[string]bool {
	dirs := map[string]bool{}
	for key := range s.st.ServerChecksums {
		if gone[key] {
			continue
		}
		for dir := path.Dir(key); dir != "." && !dirs[dir]; dir = path.Dir(dir) {
			dirs[dir] = true
		}
	}
	return dirs
}

// shadowed says why the new key k cannot be sent: the server holds a note
// where k has a directory (k is in a directory named like a team note),
// or notes in a directory named k (dirs), and no deletion sent (gone)
// takes them away. Sent,
// either would leave the team a repo no file system holds: a teammate's
// pull could write one of the two, never both. It is empty for a key that
// can be sent.
func (s *session) shadowed(k string, gone, dirs map[string]bool) string {
	for dir := path.Dir(k); dir != "."; dir = path.Dir(dir) {
		if _, note := s.st.ServerChecksums[dir]; note && !gone[dir] {
			return fmt.Sprintf("not sent: the team's %s is a note, so no note can be in a directory of that name; rename the directory", s.Show(dir))
		}
	}
	if dirs[k] {
		return fmt.Sprintf("not sent: the team has notes in a directory %s/, so no note can have that name; rename the note", s.Show(k))
	}
	return ""
}
