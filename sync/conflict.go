package memsync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/teammemd/teammemd/sync/fsio"
)

// saveConflict saves a losing version of key outside the team directory as
// <state>/conflicts/<repo>@<host>/<key minus ext>.<UTC time>.<source><ext>,
// under the redacted key when key's name holds a secret, with -2, -3, ...
// after the source when that name is taken. The copy is written to a temp
// file, fsynced and renamed, so a failure (a full disk) leaves nothing
// behind. It only writes the copy, so copies of different keys can be
// saved at once; recordConflict records it.
func (s *session) saveConflict(key, source string, data []byte) (Conflict, error) {
	key = s.Show(key)
	now := s.now().UTC()
	if err := os.MkdirAll(s.conflict, 0o700); err != nil {
		return Conflict{}, fmt.Errorf("create conflict directory: %w", err)
	}
	root, err := os.OpenRoot(s.conflict)
	if err != nil {
		return Conflict{}, fmt.Errorf("open conflict directory: %w", err)
	}
	defer root.Close()
	ext := path.Ext(key)
	stem := strings.TrimSuffix(key, ext) + "." + now.Format("20060102T150405.000Z") + "." + source
	if dir := path.Dir(stem); dir != "." {
		if err := root.MkdirAll(dir, 0o700); err != nil {
			return Conflict{}, fmt.Errorf("create conflict directory for %s: %w", key, err)
		}
	}
	name, err := placeConflict(root, stem, ext, data)
	if err != nil {
		return Conflict{}, fmt.Errorf("keep conflict copy of %s: %w", key, err)
	}
	p := filepath.Join(s.conflict, filepath.FromSlash(name))
	return Conflict{Key: key, Path: p, Source: source, Time: now}, nil
}

// placeConflict writes data to a temp file at the top of the conflict
// directory and renames it to the first free name stem[-N]ext. Choosing
// the name and renaming are two steps; the repo lock keeps any other
// writer out between them.
func placeConflict(root *os.Root, stem, ext string, data []byte) (string, error) {
	tmp, err := fsio.CreateTemp(root, data, 0o600, conflictWriteFault())
	if err != nil {
		return "", err
	}
	for n := 1; ; n++ {
		name := stem + ext
		if n > 1 {
			name = fmt.Sprintf("%s-%d%s", stem, n, ext)
		}
		_, err := root.Lstat(name)
		if err == nil {
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			err = root.Rename(tmp, name)
		}
		if err != nil {
			root.Remove(tmp)
			return "", err
		}
		return name, fsio.SyncDir(root, path.Dir(name))
	}
}

// recordConflict notes a saved conflict copy in state and in the report,
// and logs it where the report is not shown (Options.ReportShown).
func (s *session) recordConflict(c Conflict) {
	s.st.Conflicts = append(s.st.Conflicts, c)
	s.rep.Conflicts = append(s.rep.Conflicts, c)
	if s.reportShown {
		return
	}
	s.log.Warn("kept conflicting version", "key", c.Key, "source", c.Source, "path", c.Path)
}

// Conflicts returns every conflict copy recorded for the repo, oldest
// first, as the saved state lists them. The state file is replaced
// atomically, so it reads without waiting for a sync under way.
func (e *Engine) Conflicts() ([]Conflict, error) {
	store := stateStore{path: e.state.path}
	st, _, err := store.loadReadOnly(e.cfg.Repo, e.remote.Host())
	if err != nil {
		return nil, err
	}
	return st.Conflicts, nil
}
