package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// hintWriteTimeout bounds the write of one hint to a parked wait: a
// client that does not read it for this long has its wait ended.
const hintWriteTimeout = time.Second

// writeHint is the informational response a write hint is (PROTOCOL.md
// section 21).
var writeHint = []byte("HTTP/1.1 103 Early Hints\r\n" + api.HeaderHint + ": " + api.HintWrite + "\r\n\r\n")

// hintHeader reports whether a change wait or hash probe carries
// HeaderHint, or 400 when it is malformed or given twice. A wait that
// carries it asks for write hints (and gets them over HTTP/1.1 or later
// alone: an HTTP/1.0 client must never see a 1xx); a probe announces a
// write (announceWrite).
func hintHeader(r *http.Request) (bool, error) {
	v := r.Header.Values(api.HeaderHint)
	switch {
	case len(v) == 0:
		return false, nil
	case len(v) > 1 || v[0] != api.HintWrite:
		return false, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest,
			fmt.Sprintf("%s must be given once, as %q", api.HeaderHint, api.HintWrite))
	}
	return true, nil
}

// announceWrite hints the waits on repo of a write that p's client
// (instance, "" for none) sends or is about to send, when p may write
// there and the repo is not under review: a PUT as it arrives, before its
// scan and commit, and the hash probe that announces one while the client
// still reads and scans what it will send. It reports whether the write
// was announced.
func (s *Server) announceWrite(p auth.Principal, repo, instance string) bool {
	if !p.Allows(repo, store.LevelWrite) || s.ReviewRequired(repo) {
		return false
	}
	s.hintWrite(repo, instance)
	return true
}

// hintWrite announces a write to repo that instance ("" for none) sent
// to the waits parked on repo that asked for hints, but those of the
// writer's own instance, which its write does not answer (section 19).
// The hints go out on a goroutine of their own: the write does not wait
// for them. A wait held by its handler (HTTP/2, a lane) or parked on
// another replica gets none.
func (s *Server) hintWrite(repo, instance string) {
	s.lot.mu.Lock()
	defer s.lot.mu.Unlock()
	pr := s.lot.repos[repo]
	if pr == nil || s.lot.closed {
		return
	}
	var waits []*parkedWait
	for pw := range pr.waits {
		if pw.hints && (instance == "" || pw.instance != instance) {
			waits = append(waits, pw)
		}
	}
	if len(waits) == 0 {
		return
	}
	s.lot.wg.Go(func() {
		for _, pw := range waits {
			sent, ok := pw.hint()
			if sent {
				s.metrics.writeHints.Inc()
			}
			if !ok {
				s.endParked(pw, nil)
			}
		}
	})
}

// hint sends pw a write hint unless it ended or had MaxWriteHints. It
// reports whether it sent one, and false in ok when the write failed: the
// connection may hold part of the hint, so the wait must end.
func (pw *parkedWait) hint() (sent, ok bool) {
	pw.writeMu.Lock()
	defer pw.writeMu.Unlock()
	if pw.ended.Load() || pw.hinted >= api.MaxWriteHints {
		return false, true
	}
	pw.hinted++
	_ = pw.conn.SetWriteDeadline(time.Now().Add(hintWriteTimeout))
	_, err := pw.conn.Write(writeHint)
	return err == nil, err == nil
}

// writeWarmer is a store that can ready its writer for a write about to
// come (the SQLite store's WarmWrite), reporting whether it did.
type writeWarmer interface {
	WarmWrite(ctx context.Context, repo string) bool
}

// warmTimeout bounds one warm-up of the store's writer.
const warmTimeout = time.Second

// warmWrite has a store that can (writeWarmer) ready its writer for the
// write to repo a probe announced, on a goroutine of its own, one at a
// time: the write comes a few milliseconds later, while the client reads
// and scans it, and finds the store's code and pages in memory. The
// store gives way to any write that comes meanwhile.
func (s *Server) warmWrite(repo string) {
	if s.warmer == nil || !s.warming.CompareAndSwap(false, true) {
		return
	}
	s.lot.mu.Lock()
	defer s.lot.mu.Unlock()
	if s.lot.closed {
		s.warming.Store(false)
		return
	}
	s.lot.wg.Go(func() {
		defer s.warming.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), warmTimeout)
		defer cancel()
		savetrace.Mark("server.warmup", "")
		if s.warmer.WarmWrite(ctx, repo) {
			s.metrics.writeWarms.Inc()
			savetrace.Mark("server.warmed", "")
		}
	})
}
