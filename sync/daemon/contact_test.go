package daemon

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
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
