package memsync

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

// kept returns every content p holds: its team files and its conflict
// copies.
func kept(t testing.TB, p *peer) []string {
	t.Helper()
	var out []string
	for _, root := range []string{p.dir, filepath.Join(p.state, "conflicts")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && path == root {
				return nil
			}
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			out = append(out, string(data))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestRestoreLosesNothing syncs a teammate's notes, restores the server's
// database from a backup taken before some of them (versions go back, a
// note the backup holds deleted was written again since, a note is newer
// than the backup, a note is not in it at all) with a new store identity,
// while the teammate has an unsent edit and an unsent deletion. The next sync, or a push alone as
// a daemon makes on a local change, re-baselines: every content the
// teammate held is still in the team directory or a conflict copy, the
// notes the server lacks or deleted are pushed again, the server's versions
// win where it holds the note otherwise, and the deletion is sent.
func TestRestoreLosesNothing(t *testing.T) {
	ops := []struct {
		name string
		run  func(e *Engine) (Report, error)
	}{
		{"Sync", func(e *Engine) (Report, error) { return e.Sync(context.Background()) }},
		{"Push", func(e *Engine) (Report, error) { return e.Push(context.Background()) }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) { testRestore(t, op.run) })
	}
}

func testRestore(t *testing.T, op func(e *Engine) (Report, error)) {
	srv := servertest.Start(t)
	x := newPeer(t, srv.URL, srv.Token, nil)
	x.write(t, "a.md", "a1")
	x.write(t, "d.md", "d1")
	x.write(t, "e.md", "e1")
	x.write(t, "f.md", "f1")
	x.sync(t)
	if err := os.Remove(filepath.Join(x.dir, "e.md")); err != nil {
		t.Fatal(err)
	}
	x.sync(t)
	backup := srv.Backup(t)

	x.write(t, "a.md", "a2")
	x.write(t, "d.md", "d2, newer than the backup")
	x.write(t, "e.md", "e2, written again after the backup")
	x.write(t, "b.md", "b1, not in the backup")
	x.sync(t)
	x.write(t, "a.md", "a3, an edit not yet sent")
	if err := os.Remove(filepath.Join(x.dir, "f.md")); err != nil { // a deletion not yet sent
		t.Fatal(err)
	}
	before := kept(t, x)

	srv.Restore(t, backup)
	rep, err := op(x.eng)
	if err != nil || !rep.Rebaselined {
		t.Errorf("after the restore: Rebaselined = %v, error %v; want true, nil", rep.Rebaselined, err)
	}
	after := kept(t, x)
	for _, content := range before {
		if !slices.Contains(after, content) {
			t.Errorf("after the restore %q is neither in the team directory nor a conflict copy", content)
		}
	}
	wantServer := map[string]string{"a.md": "a1", "d.md": "d1", "e.md": "e2, written again after the backup", "b.md": "b1, not in the backup"}
	if got := serverEntries(t, srv); !maps.Equal(got, wantServer) {
		t.Errorf("server after the restore and a sync = %v, want %v", got, wantServer)
	}
	if rep := x.sync(t); !rep.NotModified || rep.PUTs != 0 || len(rep.Conflicts) != 0 || rep.Rebaselined {
		t.Errorf("next Sync = %+v, want 304, no PUT, no conflict, no re-baseline", rep)
	}
}

// TestRestoreSameContent restores a backup that holds exactly what the
// teammate synced last, with a new store identity: the sync re-baselines
// and changes nothing, no conflict copy, no PUT.
func TestRestoreSameContent(t *testing.T) {
	srv := servertest.Start(t)
	x := newPeer(t, srv.URL, srv.Token, nil)
	x.write(t, "a.md", "a1")
	x.write(t, "b.md", "b1")
	x.sync(t)
	backup := srv.Backup(t)
	srv.Restore(t, backup)
	rep := x.sync(t)
	if !rep.Rebaselined || len(rep.Conflicts) != 0 || rep.PUTs != 0 || len(rep.Pulled) != 0 {
		t.Errorf("Sync after restoring the same content = %+v, want a re-baseline that changes nothing", rep)
	}
	if x.eng.StoreChanged() {
		t.Error("StoreChanged() = true after the re-baseline, want false")
	}
}

// TestStoreIDAdopted gives a state synced before servers named their
// store (no storeId in it) the server's identity without a re-baseline.
func TestStoreIDAdopted(t *testing.T) {
	srv := servertest.Start(t)
	x := newPeer(t, srv.URL, srv.Token, nil)
	x.write(t, "a.md", "a1")
	x.sync(t)
	st, _, err := x.eng.state.loadReadOnly(testRepo, x.eng.client.Host())
	if err != nil || st.StoreID == "" {
		t.Fatalf("state after a sync: storeId %q, %v; want the server's", st.StoreID, err)
	}
	st.StoreID = ""
	if err := (&stateStore{path: x.eng.state.path}).save(st); err != nil {
		t.Fatal(err)
	}
	y := &peer{dir: x.dir, state: x.state, eng: newTestEngine(t, srv.URL, srv.Token, x.dir, x.state, nil)}
	if rep := y.sync(t); rep.Rebaselined || !rep.NotModified {
		t.Errorf("Sync of a state without storeId = %+v, want 304 and no re-baseline", rep)
	}
}
