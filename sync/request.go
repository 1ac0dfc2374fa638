package memsync

import (
	"net/http"
	"time"
)

// The operations a request, and so a Retry, can belong to.
const (
	OpPull  = "pull"
	OpProbe = "probe"
	OpWait  = "wait"
	OpPush  = "push"
)

// request is one call to the server.
type request struct {
	op          string // OpPull, OpProbe, OpWait or OpPush
	repo        string
	method      string
	url         string
	ifNoneMatch string
	ifMatch     string
	body        []byte
	timeout     time.Duration // one attempt's; RequestTimeout when zero
	// maxBody bounds the body of a 2xx answer: what the protocol lets a
	// server send for the request.
	maxBody int64
	// header holds headers of the request's own, beside credentials and
	// preconditions.
	header http.Header
	// answered, when set, sees the headers of the final answer.
	answered func(http.Header)
	// hints, when set, sees how each attempt ended (a change wait that
	// asked for write hints).
	hints *writeHints
	// once sends the request a single time, without retries.
	once bool
}
