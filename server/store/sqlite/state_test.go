package sqlite

import (
	"context"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// TestSnapshotIsACopy modifies the maps of a cached snapshot; the next
// snapshot of the same version is unchanged.
func TestSnapshotIsACopy(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mustApply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "A", "b.md": "B"}})
	mustApply(t, s, store.Write{Repo: "acme/app", Deletes: []string{"b.md"}})
	for i := range 2 {
		snap, err := s.Snapshot(ctx, "acme/app", false)
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.EntryChecksums) != 1 || len(snap.Deleted) != 1 || snap.EntryChecksums["a.md"] == "" {
			t.Fatalf("Snapshot(%d) = %v %v, want a.md live and b.md deleted", i, snap.EntryChecksums, snap.Deleted)
		}
		snap.EntryChecksums["x.md"] = "changed"
		delete(snap.EntryChecksums, "a.md")
		snap.Deleted["y.md"] = 1
	}
}
