package claude

import (
	"os"
	"path/filepath"
	"strings"
)

// maxProjectReads bounds the directories ProjectCheckouts reads for one
// name.
const maxProjectReads = 256

// ProjectCheckouts returns the existing directories whose path Claude Code
// names name (SanitizePath): the checkouts a project directory may belong
// to, found without a session transcript. It walks down from the root,
// into only the entries whose sanitized name continues name, so it reads
// a few directories per level. A name cut to 200 units and hashed cannot be
// walked back; it yields none.
func ProjectCheckouts(name string) []string {
	if len(name) > maxSanitizedLength || !strings.HasPrefix(name, "-") {
		return nil
	}
	w := projectWalk{reads: maxProjectReads}
	w.walk(string(filepath.Separator), name[1:])
	return w.found
}

// projectWalk is one ProjectCheckouts search.
type projectWalk struct {
	reads int
	found []string
}

// walk looks in dir for the entries that rest, the part of the name after
// dir's, begins with, and follows them.
func (w *projectWalk) walk(dir, rest string) {
	if w.reads <= 0 {
		return
	}
	w.reads--
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		s := SanitizePath(e.Name())
		switch {
		case rest == s:
			w.found = append(w.found, filepath.Join(dir, e.Name()))
		case strings.HasPrefix(rest, s+"-"):
			w.walk(filepath.Join(dir, e.Name()), rest[len(s)+1:])
		}
	}
}
