package memsync

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"runtime"
	"slices"

	"github.com/teammemd/teammemd/server/api"
)

// Restore brings content back as key: it pulls, writes content into the
// team directory as key's file (a local edit of key never pushed is kept
// as a conflict copy first) and pushes it the normal way, secret scan and
// If-Match included, so the server records it as a new revision. A
// content the push leaves out (a secret found, a note held back) stays in
// the team directory and the report says why; NotPushedError is returned.
func (e *Engine) Restore(ctx context.Context, key, content string) (Report, error) {
	if err := e.checkWritable(key); err != nil {
		return Report{}, err
	}
	return e.run(ctx, func(s *session) error {
		if err := s.pull(ctx); err != nil {
			return err
		}
		if err := s.checkWriteGrant(ctx); err != nil {
			return err
		}
		if err := s.writeLocal(key, content); err != nil {
			return err
		}
		return s.pushWritten(ctx, key, entryStringSum(content))
	})
}

// checkWriteGrant asks the server whether the token may write the repo,
// with a PUT that changes nothing (the protocol answers it 200 without a
// new version, and checks the grant first), so that a restore refused
// for want of a write grant writes nothing.
func (s *session) checkWriteGrant(ctx context.Context) error {
	_, err := s.remote.Put(ctx, s.cfg.Repo, "", []byte(`{"entries":{}}`))
	var ae *api.Error
	if errors.As(err, &ae) && ae.Status == http.StatusForbidden {
		return fmt.Errorf("%s: this token may only read it, and a restore needs a write grant; nothing was written: %w", s.cfg.Repo, err)
	}
	if err != nil {
		return fmt.Errorf("check the write grant: %w", err)
	}
	return nil
}

// NotPushedError is returned when content written into the synced
// directory Dir (a team directory, or a personal lane's memory directory)
// by Restore or Resolve did not reach the server; the report says why.
type NotPushedError struct{ Key, Dir string }

func (e *NotPushedError) Error() string {
	return fmt.Sprintf("%s was written into %s but not pushed (see why above); it stays there", e.Key, e.Dir)
}

// checkWritable refuses a key the engine never writes or pushes.
func (e *Engine) checkWritable(key string) error {
	if err := CheckNoteKey(key); err != nil {
		return err
	}
	if _, named := e.nameRules(key); named {
		return fmt.Errorf("%s: the name holds a secret; it never syncs", api.RedactKey(key))
	}
	return nil
}

// CheckNoteKey refuses a key that never syncs: one the protocol's key
// rules refuse, a hidden one, one not named *.md or *.txt, or one that is
// no valid file name on this system. It does not look for a secret in the
// name.
func CheckNoteKey(key string) error {
	if problem := api.KeyProblem(key, api.Limits{}); problem != "" {
		return fmt.Errorf("not a valid key: %s", problem)
	}
	if !api.IsSyncableKey(key) {
		return fmt.Errorf("%s does not sync: hidden, or not a .md or .txt file", key)
	}
	if reason := fileNameProblem(key, runtime.GOOS); reason != "" {
		return fmt.Errorf("%s is not a valid file name here: %s", key, reason)
	}
	return nil
}

// writeLocal writes value as key's file through the team directory's root,
// keeping a local edit never pushed as a conflict copy, the same way a
// pull writes, and fsyncs the directory.
func (s *session) writeLocal(key, value string) error {
	dir, err := s.td.openDir(key)
	if err != nil {
		return err
	}
	defer dir.Close()
	w := entryWrite{key: key, value: value, sum: entryStringSum(value), base: s.st.Base[key], present: true}
	o := s.writeEntry(w, openedDir{root: dir}, s.now())
	for _, c := range o.conflicts {
		s.recordConflict(c)
	}
	switch {
	case o.err != nil:
		return o.err
	case o.skip != "":
		return fmt.Errorf("cannot write %s: %s", key, o.skip)
	}
	return s.td.syncDirs(map[string]bool{path.Dir(key): true})
}

// pushWritten pushes, then checks that the server holds sum as key.
func (s *session) pushWritten(ctx context.Context, key, sum string) error {
	if err := s.push(ctx); err != nil {
		return err
	}
	if s.st.ServerChecksums[key] != sum && !slices.Contains(s.rep.Pushed, key) {
		return &NotPushedError{Key: key, Dir: s.cfg.Dir}
	}
	return nil
}

// RestoreDeleted writes back, from the server's current copy, every note
// deleted here whose deletion the server has not taken: the server's
// version, not an older one, and nothing is pushed. It is the undo of an
// accidental local deletion, held back by the mass deletion guard or not
// yet pushed. The keys written are in Report.Pulled.
func (e *Engine) RestoreDeleted(ctx context.Context) (Report, error) {
	return e.run(ctx, func(s *session) error {
		if err := s.pull(ctx); err != nil {
			return err
		}
		gone, err := s.deletedHere()
		if err != nil || len(gone) == 0 {
			return err
		}
		full, _, err := s.remote.Get(ctx, s.cfg.Repo, "")
		if err != nil {
			return err
		}
		for _, key := range gone {
			value, ok := full.Content.Entries[key]
			if !ok || entryStringSum(value) != s.st.ServerChecksums[key] {
				continue // changed on the server since the pull: the next sync takes it
			}
			if err := s.writeLocal(key, value); err != nil {
				return err
			}
			s.rep.Pulled = append(s.rep.Pulled, key)
			s.st.HeldDeletions = slices.DeleteFunc(s.st.HeldDeletions, func(k string) bool { return k == key })
		}
		return nil
	})
}

// deletedHere lists, sorted, the keys the server holds at the version
// last synced here whose file is gone from the team directory.
func (s *session) deletedHere() ([]string, error) {
	found, _, err := s.td.walkFrom(".")
	if err != nil {
		return nil, err
	}
	present := make(map[string]bool, len(found))
	for _, f := range found {
		present[f.key] = true
	}
	var gone []string
	for key, sum := range s.st.ServerChecksums {
		if !present[key] && s.st.Base[key] == sum && !s.unsyncable[key] && !s.held[key] {
			gone = append(gone, key)
		}
	}
	slices.Sort(gone)
	return gone, nil
}
