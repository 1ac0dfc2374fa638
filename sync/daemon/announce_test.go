package daemon

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
)

// parkedWaits returns a condition that holds once the server holds n
// change waits parked.
func parkedWaits(srv *servertest.Server, n int) func() bool {
	line := "\nteammemd_change_waits_parked " + strconv.Itoa(n) + "\n"
	return func() bool {
		resp, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return err == nil && strings.Contains(string(body), line)
	}
}

// hintedWaitConn holds a raw change wait of secs seconds from inm on the
// test repo that asks for write hints, as a teammate's daemon does, and
// returns once the server parked it beside the parked waits already held.
func hintedWaitConn(t *testing.T, srv *servertest.Server, inm, secs string, parked int) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", srv.Addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	q := url.Values{api.ParamRepo: {slug}, api.ParamView: {api.ViewHashes}, api.ParamWait: {secs}}
	raw := "GET " + api.Path + "?" + q.Encode() + " HTTP/1.1\r\nHost: " + srv.Addr + "\r\nAuthorization: Bearer " + srv.Token +
		"\r\nIf-None-Match: " + api.ETag(inm) + "\r\n" + api.HeaderHint + ": " + api.HintWrite + "\r\n\r\n"
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the teammate's wait parked", parkedWaits(srv, parked+1))
	return conn
}

// A save announces its write before the push reads it (PROTOCOL.md
// section 21): a teammate's wait hears of it even when the push then
// sends nothing, here a note with a secret the daemon never uploads, and
// the wait goes on to its end.
func TestSaveAnnouncesItsWrite(t *testing.T) {
	secret := "github token ghp_" + "8fJq2LmZx7Rt4VbN1cWk9PdYs3HgE6uTaQ0o\n"
	srv := startServer(t)
	mate := newTeammate(t, srv)
	mate.write(t, "first.md", "first note\n")
	dir := t.TempDir()
	startRepo(t, srv, dir, t.TempDir(), nil)
	eventually(t, "the first note pulled", fileIs(dir+"/first.md", "first note\n"))
	eventually(t, "the daemon's own wait parked", parkedWaits(srv, 1))
	conn := hintedWaitConn(t, srv, mate.eng.Checksum(), "3", 1)
	write(t, dir, "leak.md", secret)
	got, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("read the teammate's wait: %v", err)
	}
	hint := "HTTP/1.1 103 Early Hints\r\n" + api.HeaderHint + ": " + api.HintWrite + "\r\n\r\n"
	rest, ok := strings.CutPrefix(string(got), hint)
	if !ok || !strings.HasPrefix(rest, "HTTP/1.1 304 ") {
		t.Fatalf("the teammate's wait = %q, want one write hint and then 304", got)
	}
	if _, ok := serverEntries(t, srv)["leak.md"]; ok {
		t.Fatal("the note with a secret reached the server")
	}
}

// stateWarmCounter counts the engine's state warm-ups.
type stateWarmCounter struct {
	*memsync.Engine
	warmed atomic.Int32
}

func (e *stateWarmCounter) WarmState() {
	e.warmed.Add(1)
	e.Engine.WarmState()
}

// A batch of the user's changes about to be due has the daemon make the
// copy of the state its push loads; the writes of a teammate's change it
// pulls do not.
func TestBatchDueWarmsTheState(t *testing.T) {
	srv := startServer(t)
	mate := newTeammate(t, srv)
	mate.write(t, "first.md", "first note\n")
	dir := t.TempDir()
	var eng atomic.Pointer[stateWarmCounter]
	n := startRepo(t, srv, dir, t.TempDir(), func(o *Options) {
		// A debounce long enough that a pull's own writes are recorded as
		// its own, even on a loaded machine, before their batch is due.
		o.Watch.Debounce, o.Watch.MaxWait = time.Second, 2*time.Second
		open := o.Open
		o.Open = func(ctx context.Context, s Spec) (Engine, Waiter, error) {
			e, w, err := open(ctx, s)
			if err != nil {
				return e, w, err
			}
			c := &stateWarmCounter{Engine: e.(*memsync.Engine)}
			eng.Store(c)
			return c, w, nil
		}
	})
	eventually(t, "the first note pulled", fileIs(dir+"/first.md", "first note\n"))
	// The start-up push done first: a save it took in would need no batch.
	eventually(t, "the start-up push done", func() bool { r, _ := n.repoStatus(dir); return r.LastPush != nil && r.State == StateIdle })
	write(t, dir, "mine.md", "my note\n")
	eventually(t, "my note pushed", func() bool { return serverEntries(t, srv)["mine.md"] == "my note\n" })
	if n := eng.Load().warmed.Load(); n != 1 {
		t.Errorf("state warm-ups after one save = %d, want 1", n)
	}
	eventually(t, "the daemon's wait parked", parkedWaits(srv, 1))
	mate.write(t, "second.md", "second note\n")
	eventually(t, "the second note pulled", fileIs(dir+"/second.md", "second note\n"))
	time.Sleep(1200 * time.Millisecond) // past the debounce of the pull's own writes
	if n := eng.Load().warmed.Load(); n != 1 {
		t.Errorf("state warm-ups after a pull = %d, want still 1: a pull's own writes start no push", n)
	}
}
