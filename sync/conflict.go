package memsync

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// keepConflict saves a losing version of key outside the team directory as
// <state>/conflicts/<repo>@<host>/<key minus ext>.<UTC time>.<source><ext>,
// records it in state and in the report, and returns its path.
func (s *session) keepConflict(key, source string, data []byte) (string, error) {
	now := s.now().UTC()
	ext := path.Ext(key)
	name := strings.TrimSuffix(key, ext) + "." + now.Format("20060102T150405.000Z") + "." + source + ext
	if err := os.MkdirAll(s.conflict, 0o700); err != nil {
		return "", fmt.Errorf("create conflict directory: %w", err)
	}
	root, err := os.OpenRoot(s.conflict)
	if err != nil {
		return "", fmt.Errorf("open conflict directory: %w", err)
	}
	defer root.Close()
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("create conflict directory for %s: %w", key, err)
		}
	}
	if err := root.WriteFile(name, data, 0o600); err != nil {
		return "", fmt.Errorf("keep conflict copy of %s: %w", key, err)
	}
	p := filepath.Join(s.conflict, filepath.FromSlash(name))
	c := Conflict{Key: key, Path: p, Source: source, Time: now}
	s.st.Conflicts = append(s.st.Conflicts, c)
	s.rep.Conflicts = append(s.rep.Conflicts, c)
	s.log.Warn("kept conflicting version", "repo", s.cfg.Repo, "key", key, "source", source, "path", p)
	return p, nil
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
