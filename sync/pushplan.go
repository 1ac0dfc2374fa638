package memsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
)

// plan lists the entries to upload: local files whose content the server
// lacks, less those the scanner blocks, the server rejected before, or the
// server's entry cap leaves no room for. The changed files are read and
// scanned concurrently; the verdicts are applied in key order.
func (s *session) plan(ctx context.Context, local map[string]IndexEntry, deletes []string) ([]upload, error) {
	keys := make([]string, 0, len(local))
	for k, le := range local {
		if s.changed(k, le) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	checked, err := s.checkFiles(ctx, keys)
	if err != nil {
		return nil, err
	}
	var out []upload
	for i, k := range keys {
		if u, ok := s.verdict(k, checked[i]); ok {
			out = append(out, u)
		}
	}
	return s.fitCap(out, len(deletes)), nil
}

// fitCap drops new keys that would take the repo over the server's learned
// entry cap, reporting each one.
func (s *session) fitCap(ups []upload, deletes int) []upload {
	limit := s.st.ServerMaxEntries
	if limit <= 0 {
		return ups
	}
	room := limit - (len(s.st.ServerChecksums) - deletes)
	out := ups[:0]
	s.rep.OverCap = nil
	for _, u := range ups {
		if _, exists := s.st.ServerChecksums[u.Key]; exists {
			out = append(out, u)
			continue
		}
		if room > 0 {
			room--
			out = append(out, u)
			continue
		}
		s.refused(u.Key, fmt.Sprintf("does not fit: the server holds at most %d entries; it is sent once there is room", limit))
		if s.rep.OverCap == nil {
			s.rep.OverCap = &OverCap{MaxEntries: limit}
		}
		s.rep.OverCap.Files++
	}
	return out
}

// changed decides from state alone whether one local file may be part of
// the delta: its content differs from what the server holds, the change is
// local, and the server has not refused this exact content before.
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
		if r.Checksum == le.Hash {
			s.refusedContent(rk, r)
			return false
		}
		delete(s.st.Rejected, rk)
	}
	return true
}

// checkedFile is one changed file, read and scanned.
type checkedFile struct {
	data       []byte
	text       bool // valid UTF-8
	named      bool // the name holds a secret
	findings   []scan.Finding
	unreadable error // why it cannot be read, when it cannot
}

// checkFiles reads and scans keys on a pool as wide as the CPUs. It touches
// no session state; the first error ends it.
func (s *session) checkFiles(ctx context.Context, keys []string) ([]checkedFile, error) {
	out := make([]checkedFile, len(keys))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, k := range keys {
		g.Go(func() error {
			c, err := s.checkFile(gctx, k)
			out[i] = c
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// checkFile reads one file and, when it is text, scans its name and its
// content for secrets.
func (s *session) checkFile(ctx context.Context, k string) (checkedFile, error) {
	data, err := s.td.read(k)
	if errors.Is(err, fs.ErrPermission) {
		return checkedFile{unreadable: err}, nil
	}
	if err != nil {
		return checkedFile{}, err
	}
	c := checkedFile{data: data, text: utf8.Valid(data)}
	if !c.text || s.scanner == nil {
		return c, nil
	}
	named, err := s.scanName(ctx, k)
	if err != nil {
		return checkedFile{}, fmt.Errorf("scan %s for secrets: %w", s.Show(k), err)
	}
	c.named = len(named) > 0
	c.findings, err = s.scanner.File(ctx, filepath.Join(s.cfg.Dir, filepath.FromSlash(k)), data)
	if err != nil {
		return checkedFile{}, fmt.Errorf("scan %s for secrets: %w", s.Show(k), err)
	}
	c.findings = append(named, c.findings...)
	return c, nil
}

// verdict turns one checked file into an upload, or reports why not: not
// readable, not text, or a secret found (rule ids and line, never the
// secret).
func (s *session) verdict(k string, c checkedFile) (upload, bool) {
	if s.holdUnreadable(k, c.unreadable) {
		return upload{}, false
	}
	if !c.text {
		s.skipOnce(k, "not valid UTF-8 text")
		return upload{}, false
	}
	if len(c.findings) > 0 {
		s.block(k, c)
		return upload{}, false
	}
	s.forgetSecret(k)
	v := string(c.data)
	sum := entryStringSum(v)
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
