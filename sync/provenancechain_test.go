package memsync

import (
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// TestOwnPutsAdvanceOnlyAnUnbrokenChain: a record is carried over the
// PUTs only when they lead from its checksum and version to the state's
// one version at a time, each answer naming its revisions.
func TestOwnPutsAdvanceOnlyAnUnbrokenChain(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	sum := api.EntryChecksum("a")
	b := batch{Entries: []upload{{Key: "a.md", Sum: sum}}}
	answer := func(from, to string, version int64, written bool) func(*writeChain) {
		return func(o *writeChain) {
			resp := api.PutResponse{Checksum: to, Version: version, LastModified: at}
			if written {
				resp.Written = &api.Written{Subject: "ann", Keys: []string{"a.md"}}
			}
			o.note(from, b, resp)
		}
	}
	tests := []struct {
		name    string
		puts    []func(*writeChain)
		version int64
		want    bool
	}{
		{"one PUT", []func(*writeChain){answer("c0", "c1", 5, true)}, 5, true},
		{"two PUTs and one that changed nothing", []func(*writeChain){answer("c0", "c1", 5, true), answer("c1", "c1", 5, false), answer("c1", "c2", 6, true)}, 6, true},
		{"no PUT", nil, 4, false},
		{"an answer naming no revisions", []func(*writeChain){answer("c0", "c1", 5, false)}, 5, false},
		{"a version skipped", []func(*writeChain){answer("c0", "c1", 6, true)}, 6, false},
		{"from another checksum", []func(*writeChain){answer("cx", "c1", 5, true)}, 5, false},
		{"a state at another version", []func(*writeChain){answer("c0", "c1", 5, true)}, 7, false},
	}
	for _, tt := range tests {
		var o writeChain
		for _, put := range tt.puts {
			put(&o)
		}
		last := "c0"
		if len(o.links) > 0 {
			last = o.links[len(o.links)-1].to
		}
		st := &State{LastKnownChecksum: last, LastKnownVersion: tt.version, ServerChecksums: map[string]string{"a.md": sum}}
		old := &Provenance{Checksum: "c0", Version: 4, Complete: true, Keys: map[string]Change{}}
		p := o.advance(old, st)
		if p == nil && (old.Checksum != "c0" || old.Version != 4 || len(old.Keys) != 0) {
			t.Errorf("%s: advance = nil after changing the record to %+v", tt.name, old)
		}
		if (p != nil) != tt.want {
			t.Errorf("%s: advance = %+v, want a record: %v", tt.name, p, tt.want)
			continue
		}
		if p != nil && (p.Version != tt.version || p.Keys["a.md"] != (Change{Version: tt.version, Subject: "ann", Time: at, Checksum: sum})) {
			t.Errorf("%s: record = %+v, want a.md by ann at version %d", tt.name, p, tt.version)
		}
	}
}
