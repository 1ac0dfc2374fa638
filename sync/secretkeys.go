package memsync

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
)

// A key whose name holds a secret syncs in neither direction: its file is
// held back, its deletion too, the server's entry under it is not written,
// and the state file never records it. Wherever it is shown (report, log,
// conflict copy) it reads as api.RedactKey.

// nameRules returns the ids of the rules that match key's name, and
// whether any does. A name the scanner cannot check counts as matched.
func (e *Engine) nameRules(key string) ([]string, bool) {
	if e.scanner == nil {
		return nil, false
	}
	// A name is at most a few hundred bytes: its scan needs no deadline.
	found, err := e.scanName(context.Background(), key)
	if err != nil {
		return nil, true
	}
	ids := ruleIDs(found)
	return ids, len(ids) > 0
}

// scanName returns what the scanner finds in key's name, noting the name
// as holding a secret or as clean; a name noted clean before is not
// scanned again.
func (e *Engine) scanName(ctx context.Context, key string) ([]scan.Finding, error) {
	if e.knownClean(key) {
		return nil, nil
	}
	found, err := e.scanner.Key(ctx, key)
	if err != nil {
		return nil, err
	}
	if len(found) > 0 {
		e.noteSecretName(key)
	} else {
		e.noteClean(key)
	}
	return found, nil
}

// maxCleanNames bounds the names the engine remembers as clean: a repo's
// keys many times over. Past it the memory starts again.
const maxCleanNames = 1 << 16

// knownClean reports whether the scanner found no secret in key's name
// before. The engine's rules do not change while it lives, so neither does
// that verdict; a session shows and scrubs every key of the state, and
// without it would scan each name again.
func (e *Engine) knownClean(key string) bool {
	e.namesMu.Lock()
	defer e.namesMu.Unlock()
	_, ok := e.cleanNames[key]
	return ok
}

// noteClean remembers that the scanner found no secret in key's name. A
// name with a secret is never kept here: it is scanned each time.
func (e *Engine) noteClean(key string) {
	e.namesMu.Lock()
	defer e.namesMu.Unlock()
	if e.cleanNames == nil || len(e.cleanNames) >= maxCleanNames {
		e.cleanNames = map[string]struct{}{}
	}
	e.cleanNames[key] = struct{}{}
}

// ruleIDs lists the rules of found, each once, in the order found names
// them.
func ruleIDs(found []scan.Finding) []string {
	var ids []string
	for _, f := range found {
		if !slices.Contains(ids, f.RuleID) {
			ids = append(ids, f.RuleID)
		}
	}
	return ids
}

// noteSecretName remembers a key whose name holds a secret, so that an
// error naming it is shown redacted (shownErr).
func (e *Engine) noteSecretName(key string) {
	e.namesMu.Lock()
	defer e.namesMu.Unlock()
	if e.secretNames == nil {
		e.secretNames = map[string]bool{}
	}
	e.secretNames[key] = true
}

// shownErr returns err with every key whose name holds a secret, and every
// directory of one whose own name does, replaced by its redacted form in
// the message: an I/O error names the file it failed on. The error chain is
// kept for errors.Is and errors.As.
func (e *Engine) shownErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	shown := msg
	for _, n := range e.namesToRedact() {
		if strings.Contains(shown, n) {
			shown = strings.ReplaceAll(shown, n, api.RedactKey(n))
		}
	}
	if shown == msg {
		return err
	}
	return &shownError{msg: shown, err: err}
}

// namesToRedact lists the keys noted as holding a secret in their name and
// their directories whose own name holds one, longest first.
func (e *Engine) namesToRedact() []string {
	e.namesMu.Lock()
	keys := slices.Collect(maps.Keys(e.secretNames))
	e.namesMu.Unlock()
	names := keys
	for _, k := range keys {
		for i := range k {
			if k[i] == '/' {
				if _, named := e.nameRules(k[:i]); named {
					names = append(names, k[:i])
				}
			}
		}
	}
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	return names
}

// shownError is an error whose message names keys redacted.
type shownError struct {
	msg string
	err error
}

func (e *shownError) Error() string { return e.msg }
func (e *shownError) Unwrap() error { return e.err }

// Show returns key as it may be printed or logged: redacted
// (api.RedactKey) when its name holds a secret, else key itself.
func (e *Engine) Show(key string) string {
	if _, named := e.nameRules(key); named {
		return api.RedactKey(key)
	}
	return key
}

// holdSecretDeletes returns deletes without the keys whose name holds a
// secret: such a deletion is never sent by name. Each one held back is
// reported as Blocked.
func (s *session) holdSecretDeletes(deletes []string) []string {
	out := deletes[:0:0]
	for _, k := range deletes {
		rules, named := s.nameRules(k)
		if !named {
			out = append(out, k)
			continue
		}
		s.rep.Blocked = append(s.rep.Blocked, Blocked{Key: api.RedactKey(k), RuleIDs: rules, Deletion: true})
		s.log.Warn("secret in a file name; deletion not sent", "key", api.RedactKey(k), "rules", rules)
	}
	return out
}

// skipSecretName reports and returns true when the server's key k holds a
// secret in its name: the pull does not write it.
func (s *session) skipSecretName(k string) bool {
	rules, named := s.nameRules(k)
	if named {
		s.rep.skip(k, "the name holds a secret ("+strings.Join(rules, ", ")+"); not synced")
	}
	return named
}

// scrubState drops from st every key whose name holds a secret, so the
// state file never records one; the next sync finds such keys again from
// the team directory and the server. A conflict copy recorded under such a
// key is kept under the redacted key.
func (e *Engine) scrubState(st *State) {
	if e.scanner == nil {
		return
	}
	seen := map[string]bool{} // most keys are in several maps
	named := func(k string) bool {
		n, ok := seen[k]
		if !ok {
			_, n = e.nameRules(k)
			seen[k] = n
		}
		return n
	}
	for _, m := range []map[string]string{st.ServerChecksums, st.Base} {
		maps.DeleteFunc(m, func(k, _ string) bool { return named(k) })
	}
	maps.DeleteFunc(st.Tombstones, func(k string, _ int64) bool { return named(k) })
	maps.DeleteFunc(st.Rejected, func(k string, _ Rejection) bool { return named(k) })
	maps.DeleteFunc(st.Index, func(k string, _ IndexEntry) bool { return named(k) })
	for i := range st.Conflicts {
		st.Conflicts[i].Key = e.Show(st.Conflicts[i].Key)
	}
}

// showReport replaces every key of rep whose name holds a secret by its
// redacted form. Written keeps the keys written, for a watcher to
// recognise the pull's own writes; a pull never writes such a key.
func (e *Engine) showReport(rep *Report) {
	if e.scanner == nil {
		return
	}
	for _, keys := range [][]string{rep.Pulled, rep.Pushed, rep.Deleted, rep.SoftDeleted} {
		for i, k := range keys {
			keys[i] = e.Show(k)
		}
	}
	for i := range rep.Skipped {
		rep.Skipped[i].Key = e.Show(rep.Skipped[i].Key)
	}
	for i := range rep.Refused {
		rep.Refused[i].Key = e.Show(rep.Refused[i].Key)
	}
	for i := range rep.Conflicts {
		rep.Conflicts[i].Key = e.Show(rep.Conflicts[i].Key)
	}
	for i := range rep.Review {
		rep.Review[i].Key = e.Show(rep.Review[i].Key)
	}
	for i, k := range rep.Proposed {
		rep.Proposed[i] = e.Show(k)
	}
}

// rejection returns the server's refusal recorded for k, under k or under
// the redacted k a server names in its refusal, with the key it is
// recorded under.
func (s *session) rejection(k string) (Rejection, string, bool) {
	for _, rk := range []string{k, api.RedactKey(k)} {
		if r, ok := s.st.Rejected[rk]; ok {
			return r, rk, true
		}
	}
	return Rejection{}, "", false
}
