package daemon

import (
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	memsync "github.com/teammemd/teammemd/sync"
)

// provenanceNode starts a daemon for subject's token on dir with its
// state in stateDir, and returns where its provenance record lives.
func provenanceNode(t *testing.T, srv *servertest.Server, subject, dir, stateDir string) string {
	t.Helper()
	token := srv.CreateToken(t, subject, store.Grant{Pattern: "**", Level: store.LevelWrite})
	plan := Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}
	c := &counter{next: newTransport(t)}
	startNode(t, token, plan, func(o *Options) { o.Open = testOpener(t, token, stateDir, c, nil) })
	path, err := memsync.ProvenancePath(stateDir, slug, srv.URL, dir)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// recordSays returns a condition that holds once the provenance record at
// path says subject last wrote value to key.
func recordSays(path, key, subject, value string) func() bool {
	return func() bool {
		p, err := memsync.LoadProvenance(path)
		if err != nil {
			return false
		}
		c := p.Keys[key]
		return c.Subject == subject && c.Checksum == api.EntryChecksum(value)
	}
}

// TestProvenanceFollowsSyncs: each daemon's provenance record names who
// last wrote each note, after its own push and after a pull of a
// teammate's change, on a real server and real files.
func TestProvenanceFollowsSyncs(t *testing.T) { bubble(t, testProvenanceFollowsSyncs) }

func testProvenanceFollowsSyncs(t *testing.T) {
	srv := startServer(t)
	dirA, dirB := t.TempDir(), t.TempDir()
	annRecord := provenanceNode(t, srv, "ann", dirA, t.TempDir())
	bobRecord := provenanceNode(t, srv, "bob", dirB, t.TempDir())

	write(t, dirA, "a.md", "by ann\n")
	eventually(t, "ann's record to name her push", recordSays(annRecord, "a.md", "ann", "by ann\n"))
	eventually(t, "bob's record to name ann's note he pulled", recordSays(bobRecord, "a.md", "ann", "by ann\n"))

	write(t, dirB, "a.md", "by bob\n")
	eventually(t, "bob's record to name his push", recordSays(bobRecord, "a.md", "bob", "by bob\n"))
	eventually(t, "ann's record to name bob's change she pulled", recordSays(annRecord, "a.md", "bob", "by bob\n"))
}
