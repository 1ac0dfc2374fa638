package memsync

import (
	"errors"
	"io/fs"
	"os"
	"sort"
)

// Unsent lists the keys a push would send or delete, judged from the saved
// state and the team directory alone (deletions the mass deletion guard
// holds back are not listed): it asks no server, scans for no secrets and
// writes nothing, so it also answers while the server is away or the disk
// is full. On a repo never synced it lists every syncable file; with no
// team directory, nothing. A key whose name holds a secret is listed
// redacted.
func (e *Engine) Unsent() ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, _, err := e.state.loadReadOnly(e.cfg.Repo, e.remote.Host())
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(e.cfg.Dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	td, err := e.openTeamDir()
	if err != nil {
		return nil, err
	}
	defer td.close()
	s := &session{Engine: e, st: st, td: td, rep: &Report{}}
	local, _, err := s.scan()
	if err != nil {
		return nil, e.shownErr(err)
	}
	s.reopenReviews(local)
	out, _ := s.deletions(local)
	for k, le := range local {
		if s.changed(k, le) {
			out = append(out, k)
		}
	}
	for i, k := range out {
		out[i] = e.Show(k)
	}
	sort.Strings(out)
	return out, nil
}
