package memsync

import (
	"context"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// awaitParked polls the server's metrics, a bounded number of times,
// until one change wait is held.
func awaitParked(t *testing.T, srv *servertest.Server) {
	t.Helper()
	for range 500 {
		resp, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(body), "\nteammemd_change_waits_parked 1\n") {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the change wait was never held")
}

// twoNotesPushed starts a server, has a peer push one.md and two.md to
// it, and returns both and a client of the server.
func twoNotesPushed(t *testing.T) (*servertest.Server, *peer, *Client) {
	t.Helper()
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "one.md", "1")
	a.write(t, "two.md", "2")
	a.sync(t)
	return srv, a, testClient(t, srv.URL, srv.Token)
}

func TestWaitChangesComesBackWhole(t *testing.T) {
	for name, tamper := range map[string]bool{"as held": false, "held wrong: probed": true} {
		t.Run(name, func(t *testing.T) {
			srv, a, c := twoNotesPushed(t)
			ctx := context.Background()
			held, err := c.Hashes(ctx, testRepo)
			if err != nil {
				t.Fatal(err)
			}
			if tamper {
				held.EntryChecksums = map[string]string{"one.md": api.EntryChecksum("other")}
			}
			type answer struct {
				h       api.HashesResponse
				changed bool
				err     error
			}
			got := make(chan answer, 1)
			go func() {
				h, changed, err := c.WaitChanges(ctx, testRepo, held, 20*time.Second, nil)
				got <- answer{h, changed, err}
			}()
			awaitParked(t, srv)
			a.write(t, "one.md", "1b")
			a.write(t, "three.md", "3")
			a.sync(t)
			ans := <-got
			want, err := c.Hashes(ctx, testRepo)
			if err != nil {
				t.Fatal(err)
			}
			if ans.err != nil || !ans.changed || ans.h.ChangedSince != "" || ans.h.Checksum != want.Checksum ||
				!maps.Equal(ans.h.EntryChecksums, want.EntryChecksums) || !maps.Equal(ans.h.DeletedEntries, want.DeletedEntries) {
				t.Errorf("WaitChanges = %+v, %v, %v; want the whole hashes %+v", ans.h, ans.changed, ans.err, want)
			}
		})
	}
}
