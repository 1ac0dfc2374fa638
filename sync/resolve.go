package memsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// What a conflict resolution keeps.
const (
	// KeepServer keeps the version the server holds: the copy goes.
	KeepServer = "server"
	// KeepLocal keeps the conflict copy, the local edit that lost.
	KeepLocal = "local"
	// KeepFile keeps the content of a file the user names, such as a merge
	// of both.
	KeepFile = "file"
)

// ResolvedLogName is the file, in the repo's state directory, that
// records every conflict resolution, one JSON object a line.
const ResolvedLogName = "resolved.jsonl"

// Resolution is one line of the resolution log.
type Resolution struct {
	Time time.Time `json:"time"`
	Key  string    `json:"key"`
	// Kept is KeepServer, KeepLocal or, for KeepFile, the file's path.
	Kept string `json:"kept"`
	// Copy is the conflict copy settled, now removed.
	Copy string `json:"copy"`
}

// Resolve settles the conflict copy c: with KeepServer the team directory
// keeps the server's version (a pull brings it); with KeepLocal or
// KeepFile, content (the copy's, or the named file's) is written as the
// key's file and pushed the normal way. Only once that is done is the copy
// removed, dropped from the state and the decision logged; a push that
// leaves the content out (a secret found) keeps the copy and returns a
// *NotPushedError. A copy recorded under a redacted key (its name holds a
// secret) can only be settled with KeepServer.
func (e *Engine) Resolve(ctx context.Context, c Conflict, keep, kept string, content []byte) (Report, error) {
	if keep != KeepServer {
		if api.IsRedacted(c.Key) {
			return Report{}, fmt.Errorf("the copy %s is of a key whose name holds a secret, which never syncs: take what you need from it by hand, then keep the server's version", c.Path)
		}
		if err := e.checkWritable(c.Key); err != nil {
			return Report{}, err
		}
	}
	return e.run(ctx, func(s *session) error {
		i := slices.IndexFunc(s.st.Conflicts, func(o Conflict) bool { return o.Path == c.Path })
		if i < 0 {
			return fmt.Errorf("no conflict copy %s is recorded for %s (teammemd conflicts lists them)", c.Path, e.cfg.Repo)
		}
		if err := s.pull(ctx); err != nil {
			return err
		}
		if keep == KeepServer {
			if err := s.takeServers(ctx, c.Key); err != nil {
				return err
			}
		} else {
			if err := s.writeLocal(c.Key, string(content)); err != nil {
				return err
			}
			if err := s.pushWritten(ctx, c.Key, entrySum(content)); err != nil {
				return err
			}
		}
		return s.settle(c, kept)
	})
}

// takeServers writes the server's version of key as its file, where the
// pull left a version of the team directory's own (an edit not pushed, or
// held back by the secret scan), which stays as a conflict copy of its
// own. A key the server does not hold live is left as the pull left it.
func (s *session) takeServers(ctx context.Context, key string) error {
	sum, live := s.st.ServerChecksums[key]
	if !live {
		return nil
	}
	if data, err := s.td.read(key); err == nil && entrySum(data) == sum {
		return nil
	}
	full, _, err := s.remote.Get(ctx, s.cfg.Repo, "")
	if err != nil {
		return err
	}
	value, ok := full.Content.Entries[key]
	if !ok || entryStringSum(value) != sum {
		return fmt.Errorf("the server's %s changed while it was read; run the command again", key)
	}
	return s.writeLocal(key, value)
}

// settle logs the decision, then removes the copy c and drops it from the
// state: a copy that cannot be removed stays recorded.
func (s *session) settle(c Conflict, kept string) error {
	r := Resolution{Time: s.now().UTC(), Key: c.Key, Kept: kept, Copy: c.Path}
	if err := appendResolution(filepath.Join(filepath.Dir(s.state.path), ResolvedLogName), r); err != nil {
		return err
	}
	s.log.Info("conflict resolved", "key", r.Key, "kept", r.Kept, "copy", r.Copy)
	if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove conflict copy: %w", err)
	}
	s.st.Conflicts = slices.DeleteFunc(s.st.Conflicts, func(o Conflict) bool { return o.Path == c.Path })
	return nil
}

// appendResolution appends r to the log at path as one JSON line, and
// fsyncs it.
func appendResolution(path string, r Resolution) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode resolution: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open resolution log: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write resolution log: %w", err)
	}
	return nil
}

// RepoConflicts are the unresolved conflict copies of one repo, or one
// personal lane, on one server.
type RepoConflicts struct {
	// Repo is the repo slug; for a personal lane, "~personal/" and Lane.
	// Server is the server's host (ServerHost).
	Repo, Server string
	// Lane is the ID of the personal lane, "" for a team repo.
	Lane      string
	Conflicts []Conflict
}

// ConflictsIn lists the unresolved conflict copies of every repo whose
// state lives under stateDir, by repo. A state file that cannot be read is
// an error; one that is not a state file is passed over, as the engine
// would start afresh from it.
func ConflictsIn(stateDir string) ([]RepoConflicts, error) {
	paths, err := filepath.Glob(filepath.Join(stateDir, "repos", "*", "state.json"))
	if err != nil {
		return nil, fmt.Errorf("list repo states: %w", err)
	}
	var out []RepoConflicts
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read state: %w", err)
		}
		st, err := decodeState(data)
		if err != nil {
			return nil, fmt.Errorf("state file %s: %w", p, err)
		}
		lane := ""
		if id, ok := strings.CutPrefix(st.Repo, lanePrefix); ok {
			lane = id
		}
		out = append(out, RepoConflicts{Repo: st.Repo, Server: st.Server, Lane: lane, Conflicts: st.Conflicts})
	}
	return out, nil
}

// ServerHost is the host of server's base URL: what the state of a repo
// on server, and its RepoConflicts, name the server by.
func ServerHost(server string) (string, error) {
	u, err := parseServer(server)
	if err != nil {
		return "", err
	}
	return u.Host, nil
}
