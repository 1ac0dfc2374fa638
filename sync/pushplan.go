package memsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
)

// pushKeys lists, in key order, the local files that may be part of
// the delta (see changed).
func (s *session) pushKeys(local map[string]IndexEntry) []string {
	keys := make([]string, 0, len(local))
	for k, le := range local {
		if s.changed(k, le) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// capRoom admits uploads while the entry cap the push learned leaves room
// for new keys, counting from the state before the round's first batch.
type capRoom struct {
	s     *session
	limit int
	room  int
}

// newCapRoom starts a push's count of the room under the entry cap, with
// deletes keys about to be deleted.
func (s *session) newCapRoom(deletes int) *capRoom {
	limit := s.maxEntries
	if limit > 0 {
		s.rep.OverCap = nil
	}
	return &capRoom{s: s, limit: limit, room: limit - (len(s.st.ServerChecksums) - deletes)}
}

// admit reports whether u may be sent: it replaces a key the server holds,
// or a new key fits. A new key that does not fit is reported.
func (c *capRoom) admit(u upload) bool {
	if c.limit <= 0 {
		return true
	}
	if _, exists := c.s.st.ServerChecksums[u.Key]; exists {
		return true
	}
	if c.room > 0 {
		c.room--
		return true
	}
	c.s.refused(u.Key, fmt.Sprintf("does not fit: the server holds at most %d entries; it is sent once there is room", c.limit))
	if c.s.rep.OverCap == nil {
		c.s.rep.OverCap = &OverCap{MaxEntries: c.limit}
	}
	c.s.rep.OverCap.Files++
	return false
}

// changed decides from state alone whether one local file may be part of
// the delta: its content differs from what the server holds, the change is
// local, and the server has not refused this exact content before, or
// refused it for want of room and the push has met no such refusal yet.
func (s *session) changed(k string, le IndexEntry) bool {
	_, onServer := s.st.ServerChecksums[k]
	_, tomb := s.st.Tombstones[k]
	switch {
	case le.Hash == s.st.ServerChecksums[k]:
		delete(s.st.Review, k) // back to the server's copy: nothing is proposed
		return false
	case le.Hash == s.st.Base[k] && (onServer || tomb):
		return false // changed on the server only: the next pull brings it
	case s.underReview(k, le.Hash):
		return false // proposed as it is: the server holds it for review
	}
	if r, rk, ok := s.rejection(k); ok {
		if r.Checksum != le.Hash {
			delete(s.st.Rejected, rk)
			return true
		}
		return !s.holdRejected(rk, r)
	}
	return true
}

// holdRejected reports whether the file whose exact content r refused,
// recorded under key, stays out of the push, and reports it when it does:
// a refusal of the content always, one for want of room once the push met
// such a refusal, which gives the reason.
func (s *session) holdRejected(key string, r Rejection) bool {
	switch {
	case !r.forRoom():
		s.refusedContent(key, r)
	case s.noRoom == nil:
		return false // there may be room now: sent again
	default:
		s.refusedForRoom(key, *s.noRoom)
	}
	return true
}

// checkedFile is one changed file, read and scanned.
type checkedFile struct {
	data       []byte
	sum        string // the entry checksum of data, when known
	text       bool   // valid UTF-8
	named      bool   // the name holds a secret
	findings   []scan.Finding
	unreadable error // why it cannot be read, when it cannot
}

// checkFile reads one file, unless it was read ahead, and, when it is
// text, scans its name and its content for secrets.
func (s *session) checkFile(ctx context.Context, k string, ahead warmFile) (checkedFile, error) {
	c := checkedFile{data: ahead.data, sum: ahead.entry.Hash}
	if c.data == nil {
		data, err := s.td.read(k)
		if errors.Is(err, fs.ErrPermission) {
			return checkedFile{unreadable: err}, nil
		}
		if err != nil {
			return checkedFile{}, err
		}
		c = checkedFile{data: data}
	}
	c.text = utf8.Valid(c.data)
	if !c.text || s.scanner == nil {
		return c, nil
	}
	named, err := s.scanName(ctx, k)
	if err != nil {
		return checkedFile{}, fmt.Errorf("scan %s for secrets: %w", s.Show(k), err)
	}
	c.named = len(named) > 0
	c.findings, err = s.scanner.File(ctx, s.scanPath(k), c.data)
	if err != nil {
		return checkedFile{}, fmt.Errorf("scan %s for secrets: %w", s.Show(k), err)
	}
	c.findings = append(named, c.findings...)
	return c, nil
}

// scanPath is the path the scanner is given for key: its rules on paths
// see it, and its verdicts are cached under it.
func (e *Engine) scanPath(key string) string {
	return filepath.Join(e.cfg.Dir, filepath.FromSlash(key))
}

// verdict turns one checked file into an upload, or reports why not: not
// readable, not text, or a secret found (rule ids and line, never the
// secret).
func (s *session) verdict(k string, c checkedFile) (upload, bool) {
	if s.holdUnreadable(k, c.unreadable) {
		return upload{}, false
	}
	if !c.text {
		s.skipOnce(k, reasonNotText)
		s.warnNotTextOnce(k, c.data)
		return upload{}, false
	}
	delete(s.notTextWarned, k)
	if len(c.findings) > 0 {
		s.block(k, c)
		return upload{}, false
	}
	s.forgetSecret(k)
	v := string(c.data)
	sum := c.sum
	if sum == "" {
		sum = entryStringSum(v)
	}
	if s.holdPersonal(k, sum, c.data) {
		return upload{}, false
	}
	return upload{Key: k, Value: v, Sum: sum}, true
}

// block adds a Blocked entry for k, once per push, under the redacted key
// when k's name holds the secret.
func (s *session) block(k string, c checkedFile) {
	key := k
	if c.named {
		k = api.RedactKey(k)
	}
	for _, b := range s.rep.Blocked {
		if b.Key == k {
			return
		}
	}
	b := Blocked{Key: k, Line: c.findings[0].Line, RuleIDs: ruleIDs(c.findings)}
	s.rep.Blocked = append(s.rep.Blocked, b)
	s.warnSecretOnce(key, c.data, b)
}

// skipOnce reports key as skipped for reason, unless it already is; it
// reports whether it did.
func (s *session) skipOnce(key, reason string) bool {
	if slices.Contains(s.rep.Skipped, Skipped{Key: key, Reason: reason}) {
		return false
	}
	s.rep.skip(key, reason)
	return true
}

// refused reports key as left out of the push because the server refuses
// it, for reason: in Skipped and in Refused, once.
func (s *session) refused(key, reason string) {
	if s.skipOnce(key, reason) {
		s.rep.Refused = append(s.rep.Refused, Skipped{Key: key, Reason: reason})
	}
}

// refusedContent reports key as left out because the server refused this
// exact content before, as r says.
func (s *session) refusedContent(key string, r Rejection) {
	s.refused(key, fmt.Sprintf("the server refused this content (%s): %s; it is sent again once the file changes", r.Code, r.Message))
}

// refusedForRoom reports key as left out because the server has no room,
// as r, the push's refusal, says; once a push, with the reason of the
// first round that left it out: the refusal of key itself, when the push
// sent it.
func (s *session) refusedForRoom(key string, r Rejection) {
	if slices.ContainsFunc(s.rep.Refused, func(f Skipped) bool { return f.Key == key }) {
		return
	}
	s.rep.NoRoom = true
	s.refused(key, fmt.Sprintf("the server has no room for it (%s): %s; it is sent again at the next push", r.Code, r.Message))
}
