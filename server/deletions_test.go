package server_test

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

// TestDeletionMarkersBounded runs a server that keeps two deletion markers
// per repo: the PUT that deletes a third drops the oldest, and the full
// pull and the hash probe both carry the compaction horizon, that PUT's
// version, with a checksum of what they list. Before any compaction the
// bodies have no compactedThrough, as a compatible server's.
func TestDeletionMarkersBounded(t *testing.T) {
	s := servertest.Start(t, servertest.WithConfig(func(c *server.Config) { c.Deletions.MaxPerRepo = 2 }))
	put(t, s, repo, map[string]string{"a.md": "a", "b.md": "b", "c.md": "c", "d.md": "d"})
	put(t, s, repo, nil, "a.md")
	put(t, s, repo, nil, "b.md")
	if raw := string(do(t, s.URL, req{repo: repo, token: s.Token}).body); strings.Contains(raw, "compactedThrough") {
		t.Errorf("GET before any compaction = %s, want no compactedThrough", raw)
	}
	pr := put(t, s, repo, nil, "c.md")
	full, h := getFull(t, s, repo), getHashes(t, s, repo)
	want := []string{"b.md", "c.md"}
	for _, got := range []struct {
		view      string
		deleted   map[string]int64
		compacted int64
		live      map[string]string
		checksum  string
	}{
		{"full", full.Content.DeletedEntries, full.CompactedThrough, full.Content.EntryChecksums, full.Checksum},
		{"hashes", h.DeletedEntries, h.CompactedThrough, h.EntryChecksums, h.Checksum},
	} {
		if keys := slices.Sorted(maps.Keys(got.deleted)); !slices.Equal(keys, want) || got.compacted != pr.Version {
			t.Errorf("GET %s = deleted %v compacted through %d, want %v through %d", got.view, keys, got.compacted, want, pr.Version)
		}
		if sum := api.RepoChecksum(got.live, got.deleted); got.checksum != sum || got.checksum != pr.Checksum {
			t.Errorf("GET %s checksum = %s, want %s of what it lists and the PUT's %s", got.view, got.checksum, sum, pr.Checksum)
		}
	}
	if r := do(t, s.URL, req{repo: repo, token: s.Token, headers: map[string]string{"If-None-Match": `"` + pr.Checksum + `"`}}); r.status != http.StatusNotModified {
		t.Errorf("GET with the compacted checksum as If-None-Match = %d, want 304", r.status)
	}
}
