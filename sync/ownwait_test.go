package memsync

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// instancePeer is a peer whose engine's client names its instance, as
// the daemon's does, and that client.
func instancePeer(t *testing.T, srv *servertest.Server) (*peer, *Client) {
	t.Helper()
	p := newPeer(t, srv.URL, srv.Token, nil, WithInstance())
	return p, p.eng.client
}

// The engine's push carries its own change wait (PROTOCOL.md section
// 19): the wait answers a teammate's change alone, relative to the
// checksum of the push, and HashesFrom makes the hashes it applies to
// from those the wait was armed with.
func TestOwnPushCarriesTheWait(t *testing.T) {
	srv := servertest.Start(t)
	a, c := instancePeer(t, srv)
	a.write(t, "one.md", "1")
	a.write(t, "two.md", "2")
	a.sync(t)
	ctx := context.Background()
	held, err := c.Hashes(ctx, testRepo)
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		h       api.HashesResponse
		changed bool
		err     error
	}
	asked := make(chan string, 1)
	got := make(chan answer, 1)
	go func() {
		h, changed, err := c.WaitChanges(ctx, testRepo, held, 20*time.Second, func(at string) (api.HashesResponse, bool) {
			asked <- at
			h, ok := a.eng.HashesFrom(held)
			return h, ok && h.Checksum == at
		})
		got <- answer{h, changed, err}
	}()
	awaitParked(t, srv)

	a.write(t, "one.md", "1b")
	if err := os.Remove(filepath.Join(a.dir, "two.md")); err != nil {
		t.Fatal(err)
	}
	a.sync(t)
	own, err := c.Hashes(ctx, testRepo)
	if err != nil {
		t.Fatal(err)
	}
	if from, ok := a.eng.HashesFrom(held); !ok || from.Checksum != own.Checksum || !maps.Equal(from.EntryChecksums, own.EntryChecksums) ||
		!slices.Equal(slices.Sorted(maps.Keys(from.DeletedEntries)), slices.Sorted(maps.Keys(own.DeletedEntries))) {
		t.Fatalf("HashesFrom after the push = %+v, %v; want the server's %+v", from, ok, own)
	}

	b := newPeer(t, srv.URL, srv.Token, nil)
	b.sync(t)
	b.write(t, "three.md", "3")
	b.sync(t)
	ans := <-got
	want, err := c.Hashes(ctx, testRepo)
	if err != nil {
		t.Fatal(err)
	}
	if ans.err != nil || !ans.changed || ans.h.Checksum != want.Checksum || !maps.Equal(ans.h.EntryChecksums, want.EntryChecksums) {
		t.Fatalf("WaitChanges = %+v, %v, %v; want the teammate's change, whole: %+v", ans.h, ans.changed, ans.err, want)
	}
	select {
	case at := <-asked:
		if at != own.Checksum {
			t.Errorf("the answer was relative to %s, want the push's %s", at, own.Checksum)
		}
	default:
		t.Error("the answer was relative to the wait's checksum: the push woke its own wait")
	}
}

// HashesFrom makes nothing it cannot check: held with a deletion marker
// the engine's state does not know of does not come to its checksum, and
// an engine that never synced has none.
func TestHashesFromRefusesWhatItCannotMake(t *testing.T) {
	srv := servertest.Start(t)
	a, c := instancePeer(t, srv)
	if _, ok := a.eng.HashesFrom(api.HashesResponse{Checksum: "sha256:x", EntryChecksums: map[string]string{}}); ok {
		t.Error("HashesFrom before any sync = true")
	}
	a.write(t, "one.md", "1")
	a.sync(t)
	held, err := c.Hashes(context.Background(), testRepo)
	if err != nil {
		t.Fatal(err)
	}
	a.write(t, "one.md", "1b")
	a.sync(t)
	held.DeletedEntries = map[string]int64{"gone.md": 1}
	if h, ok := a.eng.HashesFrom(held); ok {
		t.Errorf("HashesFrom with an unknown marker = %+v, true; want false", h)
	}
}

// Without whole hashes to start from, HashesFrom makes them from the
// engine's state alone, when they come to its checksum.
func TestHashesFromTheStateAlone(t *testing.T) {
	srv := servertest.Start(t)
	a, c := instancePeer(t, srv)
	a.write(t, "one.md", "1")
	a.write(t, "two.md", "2")
	a.sync(t)
	if err := os.Remove(filepath.Join(a.dir, "two.md")); err != nil {
		t.Fatal(err)
	}
	a.sync(t)
	want, err := c.Hashes(context.Background(), testRepo)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := a.eng.HashesFrom(api.HashesResponse{})
	if !ok || got.Checksum != want.Checksum || !maps.Equal(got.EntryChecksums, want.EntryChecksums) ||
		!slices.Equal(slices.Sorted(maps.Keys(got.DeletedEntries)), slices.Sorted(maps.Keys(want.DeletedEntries))) {
		t.Errorf("HashesFrom(none) = %+v, %v; want the server's %+v", got, ok, want)
	}
}
