package memsync

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// putRaw writes entries and deletions to the server as another client
// would, with no If-Match.
func putRaw(t *testing.T, srv *servertest.Server, entries map[string]string, deletes ...string) {
	t.Helper()
	body, err := json.Marshal(api.PutRequest{Entries: entries, SoftDeleteKeys: deletes})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPut, srv.URL+api.Path+"?repo="+url.QueryEscape(testRepo), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT = %d, want 200", resp.StatusCode)
	}
}

// TestMemorySyncManifestUntouched: Claude Code writes a .memory-sync
// manifest into each memory store mount, memory/team/ and
// memory/team/<mount>/. The engine never pushes one, never overwrites or
// deletes one from the server's copy, and never sends a local one's
// deletion; notes in the team/<mount>/ layout sync as any other.
func TestMemorySyncManifestUntouched(t *testing.T) {
	srv := servertest.Start(t)
	putRaw(t, srv, map[string]string{".memory-sync": "server manifest\n", "acme/.memory-sync": "server mount manifest\n"})
	p := newPeer(t, srv.URL, srv.Token, nil)
	p.write(t, ".memory-sync", "local manifest\n")
	p.write(t, "acme/.memory-sync", "local mount manifest\n")
	p.write(t, "acme/build.md", goodNote)
	p.sync(t)
	check := func(when string) {
		t.Helper()
		for key, want := range map[string]string{".memory-sync": "local manifest\n", "acme/.memory-sync": "local mount manifest\n", "acme/build.md": goodNote} {
			if got := p.read(t, key); got != want {
				t.Errorf("%s: local %s = %q, want %q", when, key, got, want)
			}
		}
		entries := serverEntries(t, srv)
		if entries["acme/build.md"] != goodNote {
			t.Errorf("%s: server acme/build.md = %q, want the note", when, entries["acme/build.md"])
		}
		if entries[".memory-sync"] != "server manifest\n" || entries["acme/.memory-sync"] != "server mount manifest\n" {
			t.Errorf("%s: server manifests = %q, %q; want them as the other client left them", when, entries[".memory-sync"], entries["acme/.memory-sync"])
		}
	}
	check("after the first sync")

	putRaw(t, srv, map[string]string{".memory-sync": "server manifest, changed\n"})
	p.sync(t)
	putRaw(t, srv, map[string]string{".memory-sync": "server manifest\n"})
	p.sync(t)
	check("after the server's manifest changed")

	putRaw(t, srv, nil, ".memory-sync")
	p.sync(t)
	if got := p.read(t, ".memory-sync"); got != "local manifest\n" {
		t.Errorf("after the server deleted .memory-sync, local = %q, want it kept", got)
	}
	putRaw(t, srv, map[string]string{".memory-sync": "server manifest\n"})
	if err := os.Remove(filepath.Join(p.dir, "acme", ".memory-sync")); err != nil {
		t.Fatal(err)
	}
	p.sync(t)
	if got := serverEntries(t, srv)["acme/.memory-sync"]; got != "server mount manifest\n" {
		t.Errorf("after the local acme/.memory-sync was deleted, server = %q, want it kept", got)
	}
}
