package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// heldForRoom is a condition on a status: it holds back paths alone, each
// for want of room in the personal quota, with the server's reason.
func heldForRoom(paths ...string) func(RepoStatus) bool {
	return func(s RepoStatus) bool {
		var got []string
		for _, h := range s.Held {
			if !strings.Contains(h.Reason, "("+api.CodePersonalQuota+")") || !strings.Contains(h.Reason, "would hold 4 entries") {
				return false
			}
			got = append(got, h.Path)
		}
		return slices.Equal(got, paths) && len(s.Blocked) == 0
	}
}

// quotaNote is the content of note key in these tests.
func quotaNote(key string) string { return "note " + key + "\n" }

// TestPersonalLaneQuotaRoom: private notes the server refused for want of
// room in the personal quota are held back with the server's reason, and
// are sent, unchanged, once there is room: by the push of a deletion on
// the same machine, and after deletions on another machine, by the push a
// restart makes and the one a reload makes.
func TestPersonalLaneQuotaRoom(t *testing.T) { bubble(t, testPersonalLaneQuotaRoom) }

func testPersonalLaneQuotaRoom(t *testing.T) {
	l := newPersonalLab(t, servertest.WithConfig(func(c *server.Config) { c.Personal.MaxEntries = 3 }))
	state := t.TempDir()
	keepState := func(o *Options) { o.Open = testOpener(t, l.token, state, &counter{next: newTransport(t)}, nil) }
	a := l.machine(t, false, keepState)
	for i := 1; i <= 6; i++ {
		k := fmt.Sprintf("q%d.md", i)
		write(t, a.mem, k, quotaNote(k))
	}
	a.node.settles(t, a.mem, "q4.md to q6.md held for room", heldForRoom("q4.md", "q5.md", "q6.md"))

	remove(t, a.mem, "q1.md")
	a.node.settles(t, a.mem, "q4.md sent with the deletion", heldForRoom("q5.md", "q6.md"))
	if !l.laneHolds(t, "q4.md", quotaNote("q4.md")) {
		t.Fatal("the lane does not hold q4.md after the push of a deletion")
	}

	b := l.machine(t, false, nil)
	eventually(t, "q4.md on the other machine", fileIs(filepath.Join(b.mem, "q4.md"), quotaNote("q4.md")))
	time.Sleep(1200 * time.Millisecond) // past the debounce of the pull's own writes
	a.node.stop(t)
	remove(t, b.mem, "q2.md")
	b.node.settles(t, b.mem, "q2.md deleted in the lane", func(s RepoStatus) bool { return len(l.laneEntries(t)) == 2 })
	restarted := startNode(t, l.token, a.plan, keepState)
	restarted.settles(t, a.mem, "q5.md sent after the restart", heldForRoom("q6.md"))
	if !l.laneHolds(t, "q5.md", quotaNote("q5.md")) {
		t.Fatal("the lane does not hold q5.md after the restart")
	}

	remove(t, b.mem, "q3.md")
	eventually(t, "q3.md deleted on the first machine", func() bool {
		_, err := os.Stat(filepath.Join(a.mem, "q3.md"))
		return os.IsNotExist(err)
	})
	if err := restarted.d.Reload(context.Background(), a.plan); err != nil {
		t.Fatal(err)
	}
	restarted.settles(t, a.mem, "nothing held after the reload", func(s RepoStatus) bool { return len(s.Held) == 0 && len(s.Pending) == 0 })
	for _, k := range []string{"q4.md", "q5.md", "q6.md"} {
		if !l.laneHolds(t, k, quotaNote(k)) {
			t.Errorf("the lane does not hold %s as written", k)
		}
		if got, err := os.ReadFile(filepath.Join(a.mem, k)); err != nil || string(got) != quotaNote(k) {
			t.Errorf("%s = %q, %v; want it as written", k, got, err)
		}
	}
}

// remove deletes the file name in dir.
func remove(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
		t.Fatal(err)
	}
}

// TestPersonalLaneRoomMadeElsewhere: a note held for want of room is sent
// once another machine's deletion, pulled here, makes room, with nothing
// changed on this machine and no reload.
func TestPersonalLaneRoomMadeElsewhere(t *testing.T) { bubble(t, testPersonalLaneRoomMadeElsewhere) }

func testPersonalLaneRoomMadeElsewhere(t *testing.T) {
	l := newPersonalLab(t, servertest.WithConfig(func(c *server.Config) { c.Personal.MaxEntries = 3 }))
	a := l.machine(t, false, nil)
	for i := 1; i <= 4; i++ {
		k := fmt.Sprintf("q%d.md", i)
		write(t, a.mem, k, quotaNote(k))
	}
	a.node.settles(t, a.mem, "q4.md held for room", heldForRoom("q4.md"))
	b := l.machine(t, false, nil)
	eventually(t, "q1.md on the other machine", fileIs(filepath.Join(b.mem, "q1.md"), quotaNote("q1.md")))
	time.Sleep(1200 * time.Millisecond) // past the debounce of the pull's own writes
	remove(t, b.mem, "q1.md")
	eventually(t, "q1.md deleted on the first machine", func() bool {
		_, err := os.Stat(filepath.Join(a.mem, "q1.md"))
		return os.IsNotExist(err)
	})
	a.node.settles(t, a.mem, "q4.md sent once the deletion made room", func(s RepoStatus) bool { return len(s.Held) == 0 })
	if !l.laneHolds(t, "q4.md", quotaNote("q4.md")) {
		t.Error("the lane does not hold q4.md after the deletion pulled made room")
	}
}

// TestTeamRepoRoomMadeByATeammate: a file a team repo's entry limit left
// out is sent once a teammate's deletion, pulled here, makes room, with
// nothing changed on this machine.
func TestTeamRepoRoomMadeByATeammate(t *testing.T) { bubble(t, testTeamRepoRoomMadeByATeammate) }

func testTeamRepoRoomMadeByATeammate(t *testing.T) {
	srv := startServer(t, servertest.WithLimits(api.Limits{MaxEntries: 2}))
	dirA, dirB := t.TempDir(), t.TempDir()
	a := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirA, Server: srv.URL, Source: "test"}}}, nil)
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		write(t, dirA, k, k+"\n")
	}
	a.settles(t, dirA, "c.md left out over the limit", func(s RepoStatus) bool {
		return len(serverEntries(t, srv)) == 2 && len(s.Held) == 1
	})
	held, _ := a.repoStatus(dirA)
	startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dirB, Server: srv.URL, Source: "test"}}}, nil)
	gone := "a.md"
	if held.Held[0].Path == "a.md" {
		gone = "b.md"
	}
	eventually(t, gone+" on the teammate's machine", fileIs(filepath.Join(dirB, gone), gone+"\n"))
	time.Sleep(1200 * time.Millisecond) // past the debounce of the pull's own writes
	remove(t, dirB, gone)
	eventually(t, "the held file sent once the teammate's deletion made room", func() bool {
		e := serverEntries(t, srv)
		_, sent := e[held.Held[0].Path]
		return len(e) == 2 && sent
	})
}
