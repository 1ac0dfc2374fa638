package daemon

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

// savedStoreID reads the store identity the repo's state file in stateDir
// holds.
func savedStoreID(t *testing.T, stateDir string) string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(stateDir, "repos", "*", "state.json"))
	if err != nil || len(paths) != 1 {
		return ""
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		return ""
	}
	var st struct {
		StoreID string `json:"storeId"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("state file: %v", err)
	}
	return st.StoreID
}

func currentStoreID(t *testing.T, srv *servertest.Server) string {
	t.Helper()
	id, err := srv.Store.StoreID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestDaemonRebaselinesAfterRestore runs a daemon while the server's
// database is restored from backups with a new store identity, and no file
// changes meanwhile: the daemon's change wait sees the identity change and
// the daemon re-baselines by itself. A backup older than notes written
// since: the server's versions win, the newer local one is kept as a
// conflict copy, a note the backup lacks is pushed again. A backup with
// the same content: the daemon takes the new identity on. A backup from
// before the repo was written: every note is pushed again.
func TestDaemonRebaselinesAfterRestore(t *testing.T) { bubble(t, testDaemonRebaselinesAfterRestore) }

func testDaemonRebaselinesAfterRestore(t *testing.T) {
	srv := startServer(t)
	empty := srv.Backup(t)
	dir, stateDir := t.TempDir(), t.TempDir()
	c := &counter{next: newTransport(t)}
	n := startNode(t, srv.Token, Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}, func(o *Options) {
		o.Open = testOpener(t, srv.Token, stateDir, c, nil)
	})
	serverHolds := func(want map[string]string) func() bool {
		return func() bool { return maps.Equal(serverEntries(t, srv), want) }
	}
	write(t, dir, "d.md", "d1\n")
	write(t, dir, "keep.md", "k1\n")
	eventually(t, "the notes on the server", serverHolds(map[string]string{"d.md": "d1\n", "keep.md": "k1\n"}))
	backup := srv.Backup(t)
	write(t, dir, "d.md", "d2, newer than the backup\n")
	write(t, dir, "b.md", "b1, not in the backup\n")
	eventually(t, "the newer notes on the server", serverHolds(map[string]string{"d.md": "d2, newer than the backup\n", "keep.md": "k1\n", "b.md": "b1, not in the backup\n"}))

	srv.Restore(t, backup)
	eventually(t, "b.md pushed again after the restore", serverHolds(map[string]string{"d.md": "d1\n", "keep.md": "k1\n", "b.md": "b1, not in the backup\n"}))
	eventually(t, "d.md back at the server's version", fileIs(filepath.Join(dir, "d.md"), "d1\n"))
	eventually(t, "the newer d.md kept as a conflict copy", func() bool {
		r, _ := n.repoStatus(dir)
		return slices.ContainsFunc(r.Conflict, func(p string) bool {
			data, err := os.ReadFile(p)
			return err == nil && string(data) == "d2, newer than the backup\n"
		})
	})

	srv.Restore(t, srv.Backup(t))
	id := currentStoreID(t, srv)
	eventually(t, "the same content's new identity taken on", func() bool { return savedStoreID(t, stateDir) == id })

	srv.Restore(t, empty)
	eventually(t, "every note pushed again to a server without the repo", serverHolds(map[string]string{"d.md": "d1\n", "keep.md": "k1\n", "b.md": "b1, not in the backup\n"}))
}
