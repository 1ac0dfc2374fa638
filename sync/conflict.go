package memsync

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// saveConflict saves a losing version of key outside the team directory as
// <state>/conflicts/<repo>@<host>/<key minus ext>.<UTC time>.<source><ext>,
// under the redacted key when key's name holds a secret. It only writes
// the copy, so copies of different keys can be saved at once;
// recordConflict records it.
func (s *session) saveConflict(key, source string, data []byte) (Conflict, error) {
	key = s.Show(key)
	now := s.now().UTC()
	ext := path.Ext(key)
	name := strings.TrimSuffix(key, ext) + "." + now.Format("20060102T150405.000Z") + "." + source + ext
	if err := os.MkdirAll(s.conflict, 0o700); err != nil {
		return Conflict{}, fmt.Errorf("create conflict directory: %w", err)
	}
	root, err := os.OpenRoot(s.conflict)
	if err != nil {
		return Conflict{}, fmt.Errorf("open conflict directory: %w", err)
	}
	defer root.Close()
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o700); err != nil {
			return Conflict{}, fmt.Errorf("create conflict directory for %s: %w", key, err)
		}
	}
	if err := root.WriteFile(name, data, 0o600); err != nil {
		return Conflict{}, fmt.Errorf("keep conflict copy of %s: %w", key, err)
	}
	p := filepath.Join(s.conflict, filepath.FromSlash(name))
	return Conflict{Key: key, Path: p, Source: source, Time: now}, nil
}

// recordConflict notes a saved conflict copy in state and in the report.
func (s *session) recordConflict(c Conflict) {
	s.st.Conflicts = append(s.st.Conflicts, c)
	s.rep.Conflicts = append(s.rep.Conflicts, c)
	s.log.Warn("kept conflicting version", "key", c.Key, "source", c.Source, "path", c.Path)
}

// Conflicts returns every conflict copy recorded for the repo, oldest
// first.
func (e *Engine) Conflicts() ([]Conflict, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	store := stateStore{path: e.state.path}
	st, _, err := store.loadReadOnly(e.cfg.Repo, e.client.Host())
	if err != nil {
		return nil, err
	}
	return st.Conflicts, nil
}
