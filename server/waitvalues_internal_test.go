package server

import (
	"maps"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

func TestRecentValuesTellWhatOneCommitWrote(t *testing.T) {
	var rv recentValues
	rv.put("acme/app", "c2", 2, map[string]string{"a.md": "a2", "b.md": "b2"}, nil)
	sums := func(kv ...string) map[string]string {
		out := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = api.EntryChecksum(kv[i+1])
		}
		return out
	}
	if got := rv.valuesFor("acme/app", "c2", sums("a.md", "a2")); !maps.Equal(got, map[string]string{"a.md": "a2"}) {
		t.Errorf("one key the commit wrote: %v", got)
	}
	for name, c := range map[string]struct {
		repo, checksum string
		sums           map[string]string
	}{
		"a key the commit did not write":  {"acme/app", "c2", sums("a.md", "a2", "c.md", "c")},
		"another value than the commit's": {"acme/app", "c2", sums("a.md", "a1")},
		"another checksum":                {"acme/app", "c1", sums("a.md", "a2")},
		"another repo":                    {"acme/web", "c2", sums("a.md", "a2")},
		"no keys":                         {"acme/app", "c2", nil},
	} {
		if got := rv.valuesFor(c.repo, c.checksum, c.sums); got != nil {
			t.Errorf("%s: %v, want none", name, got)
		}
	}
	rv.put("acme/app", "big", 3, map[string]string{"a.md": strings.Repeat("x", api.WaitValueBytes)}, nil)
	if got := rv.valuesFor("acme/app", "big", sums("a.md", strings.Repeat("x", api.WaitValueBytes))); got != nil {
		t.Error("a commit over api.WaitValueBytes was kept")
	}
	for i := range recentCommits {
		rv.put("acme/other", string(rune('a'+i)), int64(i+1), map[string]string{"k": "v"}, nil)
	}
	if got := rv.valuesFor("acme/app", "c2", sums("a.md", "a2")); got != nil {
		t.Errorf("after %d other commits the first is still kept: %v", recentCommits, got)
	}
}

// TestRecentValuesTellWhoWrote: the revisions of a kept commit are named
// for the checksum and version it made, with the checksum it came from,
// also when its values were too many to keep; a commit kept without them
// names none.
func TestRecentValuesTellWhoWrote(t *testing.T) {
	var rv recentValues
	w := &api.Written{Subject: "alice", Keys: []string{"a.md"}}
	rv.put("acme/app", "c2", 2, map[string]string{"a.md": strings.Repeat("x", api.WaitValueBytes)}, w)
	rv.put("acme/app", "c3", 3, map[string]string{"a.md": "a3"}, nil)
	got := rv.writtenFor("acme/app", "c1", "c2", 2)
	if got == nil || got.Subject != "alice" || got.Since != "c1" || len(got.Keys) != 1 || w.Since != "" {
		t.Errorf("writtenFor(c2 at 2) = %+v (kept %+v), want alice's since c1, the kept one unchanged", got, w)
	}
	for name, g := range map[string]*api.Written{
		"another version":             rv.writtenFor("acme/app", "c1", "c2", 5),
		"a commit kept without names": rv.writtenFor("acme/app", "c2", "c3", 3),
		"another repo":                rv.writtenFor("acme/web", "c1", "c2", 2),
	} {
		if g != nil {
			t.Errorf("%s: %+v, want none", name, g)
		}
	}
}
