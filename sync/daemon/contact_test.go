package daemon

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// A server that answers, whatever it answers, is in contact: an answer
// that stops a personal lane ends the "unreachable since" a failure to
// reach it began, as any other answer does.
func TestNoteReachAnswersEndUnreachable(t *testing.T) {
	for _, err := range []error{
		nil,
		api.NewError(http.StatusNotFound, api.CodePersonalDisabled, "this server does not offer the personal lane"),
		api.NewError(http.StatusConflict, api.CodePersonalKeyChanged, "the personal key changed"),
		fmt.Errorf("pull: %w", api.NewError(http.StatusForbidden, "forbidden", "no access")),
	} {
		b := &statusBox{}
		b.unreachable(time.Now())
		b.noteReach(err)
		if st := b.snapshot(); st.UnreachableSince != nil || st.LastContact == nil {
			t.Errorf("noteReach(%v) after a failure to reach: unreachable since %v, last contact %v; want contact", err, st.UnreachableSince, st.LastContact)
		}
	}
}

// Something answered at the server URL, but not a teammemd server: the
// URL is reachable, so "unreachable since" ends, and no contact with the
// server is claimed either.
func TestNoteReachWrongServerEndsUnreachable(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("pull: %w", &memsync.NotServerError{URL: "http://127.0.0.1:1", Reason: "HTTP 404 Not Found with a text/html body"}),
		fmt.Errorf("wait: %w", &memsync.RedirectError{From: "http://127.0.0.1:1", To: "http://127.0.0.1:2", Status: http.StatusTemporaryRedirect}),
	} {
		b := &statusBox{}
		b.unreachable(time.Now())
		b.noteReach(err)
		if st := b.snapshot(); st.UnreachableSince != nil || st.LastContact != nil {
			t.Errorf("noteReach(%v) after a failure to reach: unreachable since %v, last contact %v; want neither", err, st.UnreachableSince, st.LastContact)
		}
	}
}
