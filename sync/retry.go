package memsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Retry describes one failed attempt of a request that the client is about
// to send again.
type Retry struct {
	// Op is what the request does: OpPull, OpProbe, OpWait or OpPush.
	Op   string
	Repo string
	// Attempt is the attempt that failed, from 1, out of Attempts in all.
	Attempt, Attempts int
	// Cause is why it failed: the network error or the HTTP status. It
	// never holds the token or a body.
	Cause string
	// Status is the HTTP status of the failed attempt, 0 when no answer
	// came (a network error).
	Status int
	// Unreached is set when the attempt did not reach the server: no
	// answer came, or a proxy in front of it answered 502 or 504
	// (Unreachable).
	Unreached bool
	// Wait is how long the client waits before the next attempt.
	Wait time.Duration
}

type retryTraceKey struct{}

// WithRetryTrace returns a context whose requests call f before each retry,
// as httptrace does for connections, so a caller can show a request that is
// being retried while it still runs. f must not block.
func WithRetryTrace(ctx context.Context, f func(Retry)) context.Context {
	return context.WithValue(ctx, retryTraceKey{}, f)
}

func retryTraceFrom(ctx context.Context) func(Retry) {
	f, _ := ctx.Value(retryTraceKey{}).(func(Retry))
	return f
}

// retryReport decides the retries of one request with the default policy
// and reports each one: a log line at Warn with its cause and wait, and the
// context's retry trace.
type retryReport struct {
	log      *slog.Logger
	trace    func(Retry)
	op, repo string
	attempts int
	cause    string      // the last retried failure's
	status   int         // the last retried failure's HTTP status, 0 for none
	hints    *writeHints // a hinted change wait's, nil for any other request
}

// check is the retry policy; it keeps the cause of a failure it retries.
// A redirect to another origin is refused for good: the server will send
// the same one again; so is plain HTTP answering https://.
func (r *retryReport) check(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if r.hints != nil {
		r.hints.attempted(ctx, r.log, resp, err)
	}
	var redirect *RedirectError
	if errors.As(err, &redirect) || schemeMismatch(err) {
		return false, nil
	}
	retry, cerr := retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	if retry {
		r.cause, r.status = retryCause(resp, err), 0
		if err == nil && resp != nil {
			r.status = resp.StatusCode
		}
	}
	return retry, cerr
}

// backoff picks the wait before the next attempt and reports the retry. It
// is called only when another attempt follows.
func (r *retryReport) backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	wait := clientBackoff(minWait, maxWait, attempt, resp)
	rt := Retry{Op: r.op, Repo: r.repo, Attempt: attempt + 1, Attempts: r.attempts, Cause: r.cause, Status: r.status,
		Unreached: answerOutcome(r.status, "", r.op) == Unreachable, Wait: wait}
	r.log.Warn("request failed; retrying", "repo", rt.Repo, "op", rt.Op, "attempt", rt.Attempt,
		"attempts", rt.Attempts, "cause", rt.Cause, RetryInAttr(rt.Wait))
	if r.trace != nil {
		r.trace(rt)
	}
	return wait
}

// retryCause names a failure without the request URL, the token or a body:
// the network error, or the HTTP status (a 507 as the server's storage
// being full).
func retryCause(resp *http.Response, err error) string {
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err.Error()
		}
		return err.Error()
	}
	switch {
	case resp != nil && resp.StatusCode == http.StatusInsufficientStorage:
		return storageFullCause
	case resp != nil:
		return fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return "unknown failure"
}

// Backoff returns the wait before retry number attempt (from 0) after
// consecutive failures: d = minWait·2^attempt, capped at maxWait, drawn at
// random from [d/2, d] so that clients that failed together do not retry
// together. It is the one backoff schedule: the client's retries of a
// request and the daemon's retries of a pull, push or change wait use it.
func Backoff(minWait, maxWait time.Duration, attempt int) time.Duration {
	d := maxWait
	if attempt < 62 {
		if e := minWait << attempt; e > 0 && e>>attempt == minWait && e < maxWait {
			d = e
		}
	}
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// clientBackoff is the wait before the client's next attempt: the
// server's Retry-After on a retried response, else Backoff.
func clientBackoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return d
		}
	}
	return Backoff(minWait, maxWait, attempt)
}

// maxRetryAfter caps how long a server's Retry-After can hold a client.
const maxRetryAfter = 10 * time.Minute

// retryAfter parses a Retry-After value: delay seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		d = time.Duration(min(secs, int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = max(t.Sub(now), 0)
	} else {
		return 0, false
	}
	return min(d, maxRetryAfter), true
}

// RetryInAttr is the log attribute that says how long until a retry:
// retryInMs, whole milliseconds. A duration logged as such is nanoseconds
// in a JSON log, which reads as a wait a million times too long; the
// attribute was once retryIn, in those nanoseconds, and has a new name so
// that no reader of the old one takes milliseconds for nanoseconds.
func RetryInAttr(d time.Duration) slog.Attr { return slog.Int64("retryInMs", d.Milliseconds()) }
