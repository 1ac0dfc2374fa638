package store

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// keyMap is a KeyView of live keys and their entry checksums.
type keyMap map[string]string

func (m keyMap) Checksum() string { return api.RepoChecksum(m, nil) }

func (m keyMap) LiveCount() int { return len(m) }

func (m keyMap) EntryChecksum(key string) (string, bool) {
	sum, ok := m[key]
	return sum, ok
}

func TestPlanWrite(t *testing.T) {
	cur := keyMap{"a.md": api.EntryChecksum("A"), "b.md": api.EntryChecksum("B")}
	tests := []struct {
		name        string
		w           Write
		upserts     []string
		deletes     []string
		changed     []string
		errContains string // "" for a plan
		tooMany     int    // Received of a *TooManyEntriesError
	}{
		{name: "new and changed", w: Write{Entries: map[string]string{"a.md": "A2", "c.md": "C"}},
			upserts: []string{"a.md", "c.md"}, changed: []string{"a.md", "c.md"}},
		{name: "unchanged value", w: Write{Entries: map[string]string{"a.md": "A"}}},
		{name: "deletes in order, each once", w: Write{Deletes: []string{"b.md", "x.md", "a.md", "b.md"}},
			deletes: []string{"b.md", "a.md"}, changed: []string{"a.md", "b.md"}},
		{name: "unchanged value and its delete", w: Write{Entries: map[string]string{"a.md": "A"}, Deletes: []string{"a.md"}},
			deletes: []string{"a.md"}, changed: []string{"a.md"}},
		{name: "written and deleted", w: Write{Entries: map[string]string{"c.md": "C"}, Deletes: []string{"c.md"}},
			errContains: `"c.md" is both written and deleted`},
		{name: "stale If-Match", w: Write{IfMatch: api.EmptyRepoChecksum, Entries: map[string]string{"c.md": "C"}},
			errContains: ErrPrecondition.Error()},
		{name: "current If-Match", w: Write{IfMatch: cur.Checksum(), Deletes: []string{"a.md"}},
			deletes: []string{"a.md"}, changed: []string{"a.md"}},
		{name: "over the cap", w: Write{Entries: map[string]string{"c.md": "C"}, MaxEntries: 2}, tooMany: 3},
		{name: "a delete twice makes room once", w: Write{Entries: map[string]string{"c.md": "C", "d.md": "D"},
			Deletes: []string{"a.md", "a.md"}, MaxEntries: 2}, tooMany: 3},
		{name: "a delete makes room", w: Write{Entries: map[string]string{"c.md": "C"}, Deletes: []string{"a.md"}, MaxEntries: 2},
			upserts: []string{"c.md"}, deletes: []string{"a.md"}, changed: []string{"a.md", "c.md"}},
		{name: "no change over the cap", w: Write{Entries: map[string]string{"a.md": "A"}, MaxEntries: 1}},
	}
	for _, tt := range tests {
		p, err := PlanWrite(cur, tt.w)
		var tooMany *TooManyEntriesError
		switch {
		case tt.tooMany > 0:
			if !errors.As(err, &tooMany) || tooMany.Received != tt.tooMany || tooMany.Max != tt.w.MaxEntries {
				t.Errorf("%s: PlanWrite() error = %v, want *TooManyEntriesError{Max: %d, Received: %d}", tt.name, err, tt.w.MaxEntries, tt.tooMany)
			}
		case tt.errContains != "":
			if err == nil || !strings.Contains(err.Error(), tt.errContains) {
				t.Errorf("%s: PlanWrite() error = %v, want %q", tt.name, err, tt.errContains)
			}
		case err != nil:
			t.Errorf("%s: PlanWrite() error = %v, want a plan", tt.name, err)
		default:
			if got := slices.Sorted(maps.Keys(p.Upserts)); !slices.Equal(got, tt.upserts) {
				t.Errorf("%s: PlanWrite().Upserts = %v, want %v", tt.name, got, tt.upserts)
			}
			if !slices.Equal(p.Deletes, tt.deletes) || !slices.Equal(p.Changed, tt.changed) {
				t.Errorf("%s: PlanWrite() = deletes %v changed %v, want %v %v", tt.name, p.Deletes, p.Changed, tt.deletes, tt.changed)
			}
			for k, u := range p.Upserts {
				if u.Value != tt.w.Entries[k] || u.Checksum != api.EntryChecksum(u.Value) {
					t.Errorf("%s: PlanWrite().Upserts[%q] = %+v, want the value and its entry checksum", tt.name, k, u)
				}
			}
		}
	}
}
