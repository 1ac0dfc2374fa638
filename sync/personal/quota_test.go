package personal_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	teammemd "github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/personal"
	"github.com/teammemd/teammemd/sync/personal/personaltest"
)

// newQuotaLab is newLab on a server whose personal quota holds at most
// maxEntries entries per user.
func newQuotaLab(t *testing.T, maxEntries int) *lab {
	t.Helper()
	srv := servertest.Start(t, servertest.WithConfig(func(c *teammemd.Config) { c.Personal.MaxEntries = maxEntries }))
	k, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{srv: srv, token: srv.CreateToken(t, "alice"), keys: personal.Keys{Current: k}}
	personaltest.Init(t, srv.URL, l.token, k)
	return l
}

// reopen opens a new engine over m's directories, as a restart does.
func (l *lab) reopen(t *testing.T, m *machine) *machine {
	t.Helper()
	c, err := memsync.NewClient(l.srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: l.token}),
		memsync.WithRetry(1, time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	again := &machine{mem: m.mem, state: m.state}
	cfg := personal.LaneConfig{Dir: m.mem, Project: project, Files: memsync.ProjectMemory, Server: l.srv.URL, StateDir: m.state}
	if again.eng, again.tr, err = personal.OpenLane(cfg, l.keys, c, memsync.Options{}); err != nil {
		t.Fatal(err)
	}
	return again
}

// refusedKeys lists the keys rep left out because the server refused them
// with code.
func refusedKeys(rep memsync.Report, code string) []string {
	var out []string
	for _, r := range rep.Refused {
		if strings.Contains(r.Reason, "("+code+")") {
			out = append(out, r.Key)
		}
	}
	return out
}

// quotaNote is the content of note key, q1.md to q9.md, in these tests:
// the larger the number the longer the note, so that no two refusals for
// want of room give the same reason.
func quotaNote(key string) string {
	return "note " + key + "\n" + strings.Repeat("x", 40*int(key[1]-'0'))
}

// fillQuota writes two notes more than a quota of max entries takes to
// m, and checks that the push leaves the last two out.
func fillQuota(t *testing.T, l *lab, m *machine, max int) (held []string) {
	t.Helper()
	for i := 1; i <= max+2; i++ {
		k := fmt.Sprintf("q%d.md", i)
		m.write(t, k, quotaNote(k))
	}
	held = []string{fmt.Sprintf("q%d.md", max+1), fmt.Sprintf("q%d.md", max+2)}
	rep := m.sync(t)
	if got := refusedKeys(rep, api.CodePersonalQuota); !slices.Equal(got, held) {
		t.Fatalf("refused for the quota = %v (refused %+v), want %v", got, rep.Refused, held)
	}
	if n := len(l.stored(t, m.tr.Lane())); n != max {
		t.Fatalf("server holds %d entries, want %d", n, max)
	}
	return held
}

// TestLaneQuotaRefusalSentOnceThereIsRoom: notes the server refused for
// want of room in the personal quota are sent again by a later push once
// notes were deleted, without a change to their content; while there is
// still no room, a push sends them a bounded number of times and gives the
// server's reason of this push.
func TestLaneQuotaRefusalSentOnceThereIsRoom(t *testing.T) {
	l := newQuotaLab(t, 3)
	a := l.machine(t, l.keys)
	fillQuota(t, l, a, 3)

	rep := a.sync(t)
	if got := refusedKeys(rep, api.CodePersonalQuota); !slices.Equal(got, []string{"q4.md", "q5.md"}) {
		t.Errorf("a push with no room: refused for the quota = %v, want q4.md and q5.md", got)
	}
	if rep.PUTs > 2 {
		t.Errorf("a push with no room sent %d PUTs, want at most 2", rep.PUTs)
	}

	remove(t, a, "q1.md")
	rep = a.sync(t)
	if !slices.Equal(rep.SoftDeleted, []string{"q1.md"}) || !slices.Equal(rep.Pushed, []string{"q4.md"}) {
		t.Errorf("the push of a deletion: deleted %v, pushed %v; want q1.md deleted and q4.md pushed", rep.SoftDeleted, rep.Pushed)
	}
	if got := refusedKeys(rep, api.CodePersonalQuota); !slices.Equal(got, []string{"q5.md"}) {
		t.Errorf("the push of a deletion: refused for the quota = %v, want q5.md", got)
	}
	for _, r := range rep.Refused {
		if !strings.Contains(r.Reason, "would hold 4 entries") {
			t.Errorf("refused %s: %q, want the reason of this push's refusal (4 entries)", r.Key, r.Reason)
		}
	}

	remove(t, a, "q2.md")
	rep = a.sync(t)
	if !slices.Equal(rep.Pushed, []string{"q5.md"}) || len(rep.Refused) != 0 {
		t.Errorf("the push of a second deletion: pushed %v, refused %+v; want q5.md pushed", rep.Pushed, rep.Refused)
	}
	if n := len(l.stored(t, a.tr.Lane())); n != 3 {
		t.Errorf("server holds %d entries after the room was made, want 3", n)
	}
	if rep := a.sync(t); len(rep.Refused) != 0 || rep.PUTs != 0 {
		t.Errorf("last push: refused %+v, %d PUTs; want nothing left to send", rep.Refused, rep.PUTs)
	}
	for _, k := range []string{"q3.md", "q4.md", "q5.md"} {
		if got := a.read(t, k); got != quotaNote(k) {
			t.Errorf("%s = %q, want it as written", k, got)
		}
	}
}

// TestLaneQuotaRoomMadeElsewhere: notes refused for the quota are sent by
// a machine that did not change them, once another machine deleted notes
// and the first one's next sync, after a restart, pulled the deletions.
func TestLaneQuotaRoomMadeElsewhere(t *testing.T) {
	l := newQuotaLab(t, 4)
	a, b := l.machine(t, l.keys), l.machine(t, l.keys)
	held := fillQuota(t, l, a, 4)
	b.sync(t)
	remove(t, b, "q1.md")
	remove(t, b, "q2.md")
	b.sync(t)

	again := l.reopen(t, a)
	if rep := again.sync(t); !slices.Equal(rep.Pushed, held) {
		t.Errorf("sync after the room was made elsewhere: pushed %v, refused %+v; want %v", rep.Pushed, rep.Refused, held)
	}
	b.sync(t)
	for _, k := range held {
		if got := b.read(t, k); got != quotaNote(k) {
			t.Errorf("the other machine's %s = %q, want it as written", k, got)
		}
	}
}

// remove deletes the note key of m.
func remove(t *testing.T, m *machine, key string) {
	t.Helper()
	if err := os.Remove(filepath.Join(m.mem, key)); err != nil {
		t.Fatal(err)
	}
}
