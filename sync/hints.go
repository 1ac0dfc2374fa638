package memsync

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"sync/atomic"

	"github.com/teammemd/teammemd/server/api"
)

// maxHintFailures is how many change waits that asked for write hints may
// fail on the way to the server, none having come through yet, before the
// client asks for them no more: a proxy that breaks on an informational
// response breaks the wait at every teammate's write.
const maxHintFailures = 3

// writeHints is a client's use of write hints (PROTOCOL.md section 21):
// its change waits ask for them until the way to the server shows it
// breaks on them. A hint wakes the waiting process while the server still
// scans and commits the write, so its answer finds the process running.
type writeHints struct {
	off      atomic.Bool  // asked no more
	seen     atomic.Bool  // one came through: the way passes them
	failures atomic.Int32 // hinted attempts that failed, while none was seen
}

// ask returns ctx and the header with which a change wait asks for hints,
// or ctx and nil once the client asks for them no more.
func (h *writeHints) ask(ctx context.Context) (context.Context, http.Header) {
	if h.off.Load() {
		return ctx, nil
	}
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, hdr textproto.MIMEHeader) error {
		if code == http.StatusEarlyHints && hdr.Get(api.HeaderHint) == api.HintWrite {
			h.seen.Store(true)
		}
		return nil
	}}
	return httptrace.WithClientTrace(ctx, trace), http.Header{api.HeaderHint: {api.HintWrite}}
}

// attempted notes how one attempt of a hinted wait ended: a network error
// or a proxy's 502 or 504 counts against the hints while none has come
// through, and the last failure allowed turns them off. A connection that
// could not be made counts nothing: the wait never left this machine, so
// no hint broke it (the server is down, or its name does not resolve).
func (h *writeHints) attempted(ctx context.Context, log *slog.Logger, resp *http.Response, err error) {
	if ctx.Err() != nil || h.seen.Load() || h.off.Load() || notConnected(err) {
		return
	}
	broke := err != nil || resp != nil && (resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout)
	if !broke || h.failures.Add(1) < maxHintFailures {
		return
	}
	if h.off.CompareAndSwap(false, true) {
		log.Info("change waits ask for write hints no more: the way to the server broke them", "failures", maxHintFailures)
	}
}

// notConnected reports whether err is a failure to connect to the server,
// before any byte of the request was sent.
func notConnected(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
