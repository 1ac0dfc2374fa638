package memsync

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/sync/internal/fault"
)

// compactingServer keeps one deletion marker per repo, so a teammate's
// second deletion compacts the first.
func compactingServer(t *testing.T) *servertest.Server {
	return servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.Deletions.MaxPerRepo = 1 }))
}

// deleteAndCompact has p delete key, then write and delete two more notes,
// so that key's deletion marker is compacted on a server that keeps one.
func deleteAndCompact(t *testing.T, p *peer, key string) {
	t.Helper()
	if err := os.Remove(filepath.Join(p.dir, filepath.FromSlash(key))); err != nil {
		t.Fatal(err)
	}
	p.sync(t)
	for _, k := range []string{"scratch1.md", "scratch2.md"} {
		p.write(t, k, "for a moment")
		p.sync(t)
		if err := os.Remove(filepath.Join(p.dir, k)); err != nil {
			t.Fatal(err)
		}
		p.sync(t)
	}
}

// TestCompactedDeletionNotResurrected: bob is away while alice deletes a
// note and the server compacts its deletion marker. When bob syncs again
// the deletion still wins over his unchanged copy, which is deleted and
// not pushed back; an edit he made while away wins over the deletion and
// is pushed, as against a marker; a note he deleted too stays deleted.
func TestCompactedDeletionNotResurrected(t *testing.T) {
	tests := []struct {
		name       string
		away       func(t *testing.T, bob *peer)
		wantLocal  string
		wantServer string
	}{
		{"unchanged", func(t *testing.T, bob *peer) {}, "<missing>", ""},
		{"edited while away", func(t *testing.T, bob *peer) { bob.write(t, "note.md", "note, bob's edit") }, "note, bob's edit", "note, bob's edit"},
		{"deleted while away", func(t *testing.T, bob *peer) {
			if err := os.Remove(filepath.Join(bob.dir, "note.md")); err != nil {
				t.Fatal(err)
			}
		}, "<missing>", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := compactingServer(t)
			alice, bob := newPeer(t, srv.URL, srv.Token, nil), newPeer(t, srv.URL, srv.Token, nil)
			alice.write(t, "note.md", "note")
			alice.write(t, "other.md", "other")
			alice.sync(t)
			bob.sync(t)
			deleteAndCompact(t, alice, "note.md")
			if snap, err := srv.Store.Snapshot(context.Background(), testRepo, false); err != nil || snap.CompactedThrough == 0 {
				t.Fatalf("server after the deletions = %+v, %v, want markers compacted", snap, err)
			}
			tt.away(t, bob)
			bob.sync(t)
			if got := bob.read(t, "note.md"); got != tt.wantLocal {
				t.Errorf("bob's note.md = %q, want %q", got, tt.wantLocal)
			}
			if got := serverEntries(t, srv)["note.md"]; got != tt.wantServer {
				t.Errorf("server note.md = %q, want %q", got, tt.wantServer)
			}
			if got := bob.read(t, "other.md"); got != "other" {
				t.Errorf("bob's other.md = %q, want it kept", got)
			}
			if rep := bob.sync(t); rep.PUTs != 0 || len(rep.Deleted) != 0 || len(rep.Pulled) != 0 {
				t.Errorf("bob's next sync = %+v, want nothing to do", rep)
			}
		})
	}
}

// TestKnownDeletionOutlivesItsMarker: bob sees alice's deletion while his
// copy is unreadable, so it is held back, and still while the marker is
// compacted and his next sync learns nothing new. Once the file can be read
// again, the deletion he knew of still applies: the copy is deleted, not
// pushed back as a new note.
func TestKnownDeletionOutlivesItsMarker(t *testing.T) {
	skipWithoutReadFault(t)
	srv := compactingServer(t)
	alice, bob := newPeer(t, srv.URL, srv.Token, nil), newPeer(t, srv.URL, srv.Token, nil)
	alice.write(t, "note.md", "note")
	alice.write(t, "other.md", "other")
	alice.sync(t)
	bob.sync(t)
	allow, err := fault.Denials()[0].Deny(filepath.Join(bob.dir, "note.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(alice.dir, "note.md")); err != nil {
		t.Fatal(err)
	}
	alice.sync(t)
	bob.sync(t) // sees the marker, holds the file back
	deleteAndCompact(t, alice, "other.md")
	bob.sync(t) // the marker is gone: bob knows of the deletion all the same
	bob.sync(t)
	if err := allow(); err != nil {
		t.Fatal(err)
	}
	rep := bob.sync(t)
	if got := bob.read(t, "note.md"); got != "<missing>" || !slices.Contains(rep.Deleted, "note.md") {
		t.Errorf("bob's note.md once readable = %q, Deleted %v; want it deleted", got, rep.Deleted)
	}
	if got, ok := serverEntries(t, srv)["note.md"]; ok {
		t.Errorf("server note.md = %q, want it to stay deleted", got)
	}
}

// TestCompactionAfterRestoreKeepsFiles restores the server from a backup
// taken after a deletion marker was compacted, with a new store identity:
// the re-baseline of PROTOCOL.md section 11 comes first, so bob's copy of
// the note, whose merge base it forgets, is kept and pushed again rather
// than deleted on the strength of a horizon from a database it no longer
// trusts.
func TestCompactionAfterRestoreKeepsFiles(t *testing.T) {
	srv := compactingServer(t)
	alice, bob := newPeer(t, srv.URL, srv.Token, nil), newPeer(t, srv.URL, srv.Token, nil)
	alice.write(t, "note.md", "note")
	alice.sync(t)
	bob.sync(t)
	deleteAndCompact(t, alice, "note.md")
	srv.Restore(t, srv.Backup(t))
	rep := bob.sync(t)
	if !rep.Rebaselined {
		t.Errorf("bob's sync after the restore = %+v, want a re-baseline", rep)
	}
	if got := bob.read(t, "note.md"); got != "note" {
		t.Errorf("bob's note.md = %q, want it kept", got)
	}
	if got := serverEntries(t, srv)["note.md"]; got != "note" {
		t.Errorf("server note.md = %q, want bob's copy pushed again", got)
	}
}

// TestKnownDeletions: a full pull applies the server's tombstones, and a
// merge base key the server lists neither live nor deleted only when the
// state saw its tombstone or the horizon is past the state's version.
func TestKnownDeletions(t *testing.T) {
	const sum = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
	base := map[string]string{"live.md": sum, "marked.md": sum, "seen.md": sum, "vanished.md": sum}
	resp := func(compactedThrough int64) api.FullResponse {
		return api.FullResponse{CompactedThrough: compactedThrough, Content: api.Content{
			Entries: map[string]string{"live.md": "x"}, DeletedEntries: map[string]int64{"marked.md": 5, "never.md": 6}}}
	}
	tests := []struct {
		name             string
		lastVersion      int64
		compactedThrough int64
		want             []string
	}{
		{"no compaction", 7, 0, []string{"marked.md", "never.md", "seen.md"}},
		{"compacted before the last sync", 7, 7, []string{"marked.md", "never.md", "seen.md"}},
		{"compacted since the last sync", 7, 8, []string{"marked.md", "never.md", "seen.md", "vanished.md"}},
		{"version unknown", 0, 3, []string{"marked.md", "never.md", "seen.md", "vanished.md"}},
	}
	for _, tt := range tests {
		s := &session{st: &State{Base: base, LastKnownVersion: tt.lastVersion, Tombstones: map[string]int64{"seen.md": 4, "gone.md": 3}}}
		got := s.knownDeletions(resp(tt.compactedThrough))
		if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tt.want) {
			t.Errorf("%s: knownDeletions() = %v, want %v", tt.name, keys, tt.want)
		}
		if got["seen.md"] != 4 {
			t.Errorf("%s: knownDeletions()[seen.md] = %d, want the time seen, 4", tt.name, got["seen.md"])
		}
	}
}
