package daemon

import (
	"testing"

	memsync "github.com/teammemd/teammemd/sync"
)

// A push that pulled first shows what it pulled as the last pull, and on
// its own line only what it sent.
func TestPushLineCountsWhatItSent(t *testing.T) {
	r := &repo{status: &statusBox{}}
	r.recordPush(memsync.Report{Pulled: []string{"a.md", "b.md"}, Deleted: []string{"old.md"}, Pushed: []string{"c.md"}}, nil)
	s := r.status.snapshot()
	if s.LastPush == nil || s.LastPush.Result != "1 pushed" {
		t.Errorf("last push after a push that pulled 2 and pushed 1 = %+v, want \"1 pushed\"", s.LastPush)
	}
	if s.LastPull == nil || s.LastPull.Result != "2 pulled, 1 deleted" || !s.LastPull.OK {
		t.Errorf("last pull after a push that pulled 2 and deleted 1 = %+v, want \"2 pulled, 1 deleted\"", s.LastPull)
	}
	r.recordPush(memsync.Report{Pushed: []string{"d.md"}}, nil)
	if s := r.status.snapshot(); s.LastPull.Result != "2 pulled, 1 deleted" {
		t.Errorf("last pull after a push that pulled nothing = %+v, want the earlier pull kept", s.LastPull)
	}
}
