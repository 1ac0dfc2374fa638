package daemon

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// contact records that the server answered now.
func (b *statusBox) contact(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.LastContact, b.s.UnreachableSince = &now, nil
}

// unreachable records that a request failed to reach the server now: the
// change wait is not connected, and the server is unreachable since the
// first such failure.
func (b *statusBox) unreachable(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s.Live = false
	if b.s.UnreachableSince == nil {
		b.s.UnreachableSince = &now
	}
}

// noteReach folds the outcome of a request to the server into the status:
// an answer is contact, a failure to get one makes the server unreachable.
// Errors of another kind (on disk, say) change neither.
func (b *statusBox) noteReach(err error) {
	switch {
	case err == nil:
		b.contact(time.Now())
	case unreached(err):
		b.unreachable(time.Now())
	default:
		var ae *api.Error
		if errors.As(err, &ae) {
			b.contact(time.Now())
		}
	}
}

// unreached reports whether err means no answer came from the server: a
// network error, or a gateway saying the server behind it is down (a 503
// is the server's own answer when it is full).
func unreached(err error) bool {
	var ue *url.Error
	if errors.As(err, &ue) {
		return true
	}
	var ae *api.Error
	return errors.As(err, &ae) && unreachedStatus(ae.Status)
}

// unreachedStatus reports whether an attempt's HTTP status (0 for none)
// means the server was not reached.
func unreachedStatus(status int) bool {
	switch status {
	case 0, http.StatusBadGateway, http.StatusGatewayTimeout:
		return true
	}
	return false
}

func clonedTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}
