package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// parkWriteTimeout bounds the write of a parked wait's answer.
const parkWriteTimeout = 10 * time.Second

// parkedWait is a change wait held on its connection alone. Its handler
// took the connection over from net/http and returned, so the wait keeps
// no handler goroutine, request or net/http buffer: only the connection,
// this record, its timer and a goroutine that reads the connection to
// notice the client leave. One goroutine per repo answers its parked
// waits when the repo changes; the answer closes the connection.
type parkedWait struct {
	conn     net.Conn
	repo     string
	inm      string // under parkLot.mu once parked: carryOwnWaits moves it
	delta    bool   // the client asked for the changes since inm alone
	hints    bool   // the client asked for write hints (hintWrite)
	subject  string
	bearer   string // the credential it came with, checked again before its answer
	instance string // the client instance that sent it, "" when unnamed
	method   string
	info     reqInfo // for the access log
	start    time.Time
	pr       *parkedRepo // set under parkLot.mu
	timer    *time.Timer // set under parkLot.mu
	ended    atomic.Bool
	writeMu  sync.Mutex // held over each write to conn: a hint or the answer
	hinted   int        // write hints sent, under writeMu
}

// parkedRepo is the parked waits of one repo and its goroutine's kick.
type parkedRepo struct {
	waits map[*parkedWait]struct{}
	kick  chan struct{} // buffered: a wait was parked
}

// parkLot holds every parked wait by repo.
type parkLot struct {
	mu     sync.Mutex
	repos  map[string]*parkedRepo
	closed bool           // set as the server stops: nothing parks after
	wg     sync.WaitGroup // the repos' goroutines and the waits' readers, started under mu
}

// park takes the connection of a change wait on repo, whose current
// checksum is inm, over from net/http and parks the wait until the repo
// changes, deadline passes, the client leaves or the server stops. It
// reports false, leaving the request as it was, when the connection cannot
// be taken over (HTTP/2, a test recorder) or the request has a body.
func (s *Server) park(w http.ResponseWriter, r *http.Request, a waitAsk, deadline time.Time) bool {
	subject, repo, inm := a.subject, a.repo, a.inm
	if r.ProtoMajor != 1 || r.ContentLength != 0 || store.IsPersonalRepo(repo) {
		// A lane's answer names its subject's key, which the answers
		// parked waits share do not: a lane's wait is held by its handler.
		return false
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return false
	}
	// net/http's deadlines would end the wait; the reader needs none.
	_ = conn.SetDeadline(time.Time{})
	info := infoFrom(r.Context())
	info.parked = true
	bearer, _ := bearerToken(r.Header.Get("Authorization"))
	pw := &parkedWait{conn: conn, repo: repo, inm: inm, delta: a.delta, hints: a.hints, subject: subject, bearer: bearer,
		instance: a.instance, method: r.Method, info: *info, start: info.start}
	if brw.Reader.Buffered() > 0 {
		// The client sent more before the answer: end the wait at once.
		s.endParked(pw, s.notModifiedBytes(inm))
		return true
	}
	s.lot.mu.Lock()
	if s.lot.closed {
		s.lot.mu.Unlock()
		s.endParked(pw, s.stoppingBytes())
		return true
	}
	pr := s.lot.repos[repo]
	if pr == nil {
		pr = &parkedRepo{waits: map[*parkedWait]struct{}{}, kick: make(chan struct{}, 1)}
		s.lot.repos[repo] = pr
		s.lot.wg.Go(func() { s.answerParked(repo, pr) })
	}
	pr.waits[pw] = struct{}{}
	pw.pr = pr
	s.metrics.parked.Inc()
	pw.timer = time.AfterFunc(time.Until(deadline), func() { s.answerWait(pw, s.notModifiedBytes(s.heldAt(pw))) })
	s.lot.wg.Go(func() { s.watchParked(pw) })
	s.lot.mu.Unlock()
	kick(pr)
	return true
}

// heldAt is the checksum pw waits from now.
func (s *Server) heldAt(pw *parkedWait) string {
	s.lot.mu.Lock()
	defer s.lot.mu.Unlock()
	return pw.inm
}

// kick has pr's goroutine look at its waits again.
func kick(pr *parkedRepo) {
	select {
	case pr.kick <- struct{}{}:
	default:
	}
}

// closeLot ends the parking as the server stops: nothing parks any more,
// and it waits until every parked wait has been answered and its
// connection closed, or ctx is done, when it closes what is left.
func (s *Server) closeLot(ctx context.Context) {
	s.lot.mu.Lock()
	s.lot.closed = true
	s.lot.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.lot.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	s.lot.mu.Lock()
	var left []*parkedWait
	for _, pr := range s.lot.repos {
		for pw := range pr.waits {
			left = append(left, pw)
		}
	}
	s.lot.mu.Unlock()
	for _, pw := range left {
		s.endParked(pw, nil)
	}
	<-done
}

// watchParked reads the parked wait's connection until the client leaves,
// sends anything, or the wait ends and closes it.
func (s *Server) watchParked(pw *parkedWait) {
	var b [1]byte
	_, _ = pw.conn.Read(b[:])
	s.endParked(pw, nil)
}

// answerParked answers the parked waits of repo whose checksum differs
// from the repo's, each time the repo changes or a wait is parked, until
// none is left; when the server stops it answers them all 503.
func (s *Server) answerParked(repo string, pr *parkedRepo) {
	var prev *store.Snapshot // the repo as last read
	woken := false
	for {
		changed, release := s.waker.Subscribe(repo)
		next, alive := s.answerChanged(repo, pr, changed, prev, woken)
		if !alive {
			release()
			return
		}
		if next != nil {
			prev = next
		}
		select {
		case <-changed:
			woken = true
		case <-pr.kick:
			woken = false
		case <-s.stopping:
			release()
			s.endAll(repo, pr, s.stoppingBytes())
			return
		}
		release()
	}
}

// answerChanged answers the waits of pr whose checksum differs from the
// repo's as read after subscribing to changed (woken: after a change woke
// the goroutine, see ownCommit): with the changes since
// prev, the repo as last read, those that asked for them and hold prev's
// checksum, the whole hashes the others. It returns the repo as read now
// (nil when not read or never written), and reports false, having let go
// of pr, when no wait is left.
func (s *Server) answerChanged(repo string, pr *parkedRepo, changed <-chan struct{}, prev *store.Snapshot, woken bool) (*store.Snapshot, bool) {
	if s.letGo(repo, pr) {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitReadTimeout)
	snap, found, err := s.waitHashes(ctx, repo, changed, woken)
	cancel()
	savetrace.Mark("server.hashes", "")
	s.lot.mu.Lock()
	var whole, since []*parkedWait
	for pw := range pr.waits {
		switch {
		case err != nil || pw.inm == snap.Checksum:
		case pw.delta && found && prev != nil && pw.inm == prev.Checksum:
			since = append(since, pw)
		default:
			whole = append(whole, pw)
		}
	}
	s.lot.mu.Unlock()
	if err != nil {
		s.log.Warn("change wait: read hashes", "repo", repo, "err", err)
		return nil, true // the waits stay; their timers end them
	}
	if len(since) > 0 {
		resp := s.responseBytes(func(w http.ResponseWriter) { s.writeWaitAnswer(w, prev, snap, true) })
		s.endMany(since, func(pw *parkedWait) { s.answerWait(pw, resp) })
	}
	if len(whole) > 0 {
		resp := s.changedBytes(snap, found)
		s.endMany(whole, func(pw *parkedWait) { s.answerWait(pw, resp) })
	}
	if !found {
		return nil, true
	}
	return &snap, true
}

// letGo lets go of pr, the parked waits of repo, and reports true when
// none is left; a wait parked after it parks anew.
func (s *Server) letGo(repo string, pr *parkedRepo) bool {
	s.lot.mu.Lock()
	defer s.lot.mu.Unlock()
	if len(pr.waits) > 0 {
		return false
	}
	if s.lot.repos[repo] == pr {
		delete(s.lot.repos, repo)
	}
	return true
}

// endAll lets go of pr, the parked waits of repo, and ends them all with
// the answer resp.
func (s *Server) endAll(repo string, pr *parkedRepo, resp []byte) {
	s.lot.mu.Lock()
	if s.lot.repos[repo] == pr {
		delete(s.lot.repos, repo)
	}
	waits := make([]*parkedWait, 0, len(pr.waits))
	for pw := range pr.waits {
		waits = append(waits, pw)
	}
	s.lot.mu.Unlock()
	s.endMany(waits, func(pw *parkedWait) { s.endParked(pw, resp) })
}

// endMany ends each of waits with end, on as many goroutines as there
// are CPUs.
func (s *Server) endMany(waits []*parkedWait, end func(*parkedWait)) {
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for i := range n {
		wg.Go(func() {
			for j := i; j < len(waits); j += n {
				end(waits[j])
			}
		})
	}
	wg.Wait()
}

// answerWait ends pw with resp, its answer, when its credential still
// admits it (stillAdmitted), else with the answer a new request with that
// credential gets: a wait parked before its token was revoked never hears
// of a later write.
func (s *Server) answerWait(pw *parkedWait, resp []byte) {
	if pw.ended.Load() {
		return
	}
	ctx := context.Background()
	h := &recordedResponse{header: http.Header{}}
	if err := s.stillAdmitted(ctx, h, pw.bearer, pw.repo); err != nil {
		resp = s.responseBytes(func(w http.ResponseWriter) {
			maps.Copy(w.Header(), h.header)
			s.sendError(ctx, w, err)
		})
	}
	s.endParked(pw, resp)
}

// endParked ends pw once: it sends resp (nothing when the client left),
// closes the connection, gives the wait's slot back and logs the request.
func (s *Server) endParked(pw *parkedWait, resp []byte) {
	if !pw.ended.CompareAndSwap(false, true) {
		return
	}
	s.lot.mu.Lock()
	if pw.timer != nil {
		pw.timer.Stop()
	}
	if pr := pw.pr; pr != nil {
		s.metrics.parked.Dec()
		delete(pr.waits, pw)
		if len(pr.waits) == 0 {
			kick(pr) // its goroutine lets go of it
		}
	}
	s.lot.mu.Unlock()
	status, n := http.StatusServiceUnavailable, 0 // the client left: as a canceled request
	if resp != nil {
		pw.writeMu.Lock()
		_ = pw.conn.SetWriteDeadline(time.Now().Add(parkWriteTimeout))
		n, _ = pw.conn.Write(resp)
		pw.writeMu.Unlock()
		savetrace.Mark("server.woke", "")
		status = responseStatus(resp)
	}
	_ = pw.conn.Close()
	s.waitSlots.release(pw.subject)
	s.metrics.waiters.Dec()
	s.logRequest(context.Background(), pw.method, &pw.info, status, bodySent(resp, n), time.Since(pw.start))
}

// bodySent is how many bytes of resp's body the first n bytes of resp
// hold: what the access log counts for every request, without the status
// line and headers a parked wait writes on its connection itself.
func bodySent(resp []byte, n int) int64 {
	end := bytes.Index(resp, []byte("\r\n\r\n"))
	if end < 0 {
		return 0
	}
	return int64(max(n-(end+4), 0))
}

// changedBytes is the answer to waits whose checksum is no longer the
// repo's: its hashes, or 404 for a repo never written.
func (s *Server) changedBytes(snap store.Snapshot, found bool) []byte {
	return s.responseBytes(func(w http.ResponseWriter) {
		var e *api.Error
		if !found && errors.As(notFound(), &e) {
			s.writeJSON(w, e.Status, e.Envelope())
			return
		}
		s.writeSnapshot(w, snap, true)
	})
}

// notModifiedBytes is the answer to a wait that timed out.
func (s *Server) notModifiedBytes(inm string) []byte {
	return s.responseBytes(func(w http.ResponseWriter) { notModified(w, inm) })
}

// stoppingBytes is the answer to the waits the server ends as it stops.
func (s *Server) stoppingBytes() []byte {
	return s.responseBytes(func(w http.ResponseWriter) {
		e := unavailable(w, "server is shutting down", time.Second)
		s.writeJSON(w, e.Status, e.Envelope())
	})
}

// responseBytes renders what write writes, with the headers every response
// has, as a whole HTTP/1.1 response that closes the connection.
func (s *Server) responseBytes(write func(http.ResponseWriter)) []byte {
	rec := &recordedResponse{header: http.Header{}, status: http.StatusOK}
	if id := s.identity.get(context.Background()); id != "" {
		rec.header.Set(api.StoreIDHeader, id)
	}
	write(rec)
	rec.header.Set("Date", s.now().UTC().Format(http.TimeFormat))
	resp := http.Response{StatusCode: rec.status, ProtoMajor: 1, ProtoMinor: 1, Header: rec.header,
		ContentLength: int64(rec.body.Len()), Body: io.NopCloser(&rec.body), Close: true}
	if rec.status == http.StatusNotModified {
		resp.ContentLength, resp.Body = 0, nil
	}
	var out bytes.Buffer
	_ = resp.Write(&out) // a bytes.Buffer takes every write
	return out.Bytes()
}

// recordedResponse is a ResponseWriter that keeps what is written.
type recordedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recordedResponse) Header() http.Header         { return r.header }
func (r *recordedResponse) WriteHeader(status int)      { r.status = status }
func (r *recordedResponse) Write(b []byte) (int, error) { return r.body.Write(b) }

// responseStatus reads the status code of a rendered response.
func responseStatus(resp []byte) int {
	// "HTTP/1.1 200 OK": the code is bytes 9 to 12.
	if len(resp) < 12 {
		return 0
	}
	code := 0
	for _, c := range resp[9:12] {
		code = code*10 + int(c-'0')
	}
	return code
}
