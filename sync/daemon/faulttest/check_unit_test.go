package faulttest

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/server/api"
)

// TestAccountBites shows the ledger flag a save that is nowhere and one
// stored twice, and accept saves found in the history or a conflict copy.
func TestAccountBites(t *testing.T) {
	t0 := time.Now()
	last := map[string]string{}
	mk := func(seq int, key, content string, at int) save {
		start := t0.Add(time.Duration(at) * time.Millisecond)
		sv := save{side: "alice", key: key, seq: seq, sum: api.EntryChecksum(content), overwrote: cmp.Or(last[key], "absent"),
			start: start, end: start.Add(time.Millisecond)}
		last[key] = sv.sum
		return sv
	}
	saves := []save{
		mk(1, "a.md", "pushed", 0),
		mk(2, "a.md", "copied", 5000),
		mk(3, "a.md", "lost", 10000),
		mk(4, "b.md", "twice", 10500),
		mk(5, "a.md", "overwritten at once", 15000),
		mk(6, "a.md", "last", 15100),
	}
	s := &side{name: "alice", w: &writer{saves: saves}}
	s.up.markUp(t0.Add(-time.Second))
	r := &rig{tm: suiteTiming, start: t0}
	ev := evidence{
		history: map[string]map[string][]int64{
			"a.md": {saves[0].sum: {1}, saves[5].sum: {7}},
			"b.md": {saves[3].sum: {4, 6}},
		},
		revisions: map[string]int{"a.md": 2, "b.md": 2},
		conflicts: map[string]string{saves[1].sum: "/state/conflicts/a.20260101T000000.000Z.local.md"},
	}
	var got tally
	r.account(s, ev, &got)
	counts := [6]int{got.saves, got.required, got.inHistory, got.inConflict, got.excused, got.lost}
	if want := [6]int{6, 5, 3, 1, 1, 1}; counts != want {
		t.Errorf("account() saves, required, in history, in conflict copies, excused, lost = %v, want %v", counts, want)
	}
	wantViolations := []string{"lost local edit: alice's save #3 of a.md", "duplicated: alice's save #4 of b.md"}
	if len(got.violations) != len(wantViolations) {
		t.Fatalf("account() violations = %q, want %d", got.violations, len(wantViolations))
	}
	for i, v := range got.violations {
		if !strings.HasPrefix(v, wantViolations[i]) {
			t.Errorf("account() violation %d = %q, want it to start %q", i, v, wantViolations[i])
		}
	}
}

// TestCheckDirBites shows the directory check flag temp litter, a file no
// writer saved, and a torn note, and pass a note a writer saved whole.
func TestCheckDirBites(t *testing.T) {
	dir := t.TempDir()
	whole := "# MEMORY.md\n\nalice saved version 1 of this note.\n"
	files := map[string]string{
		"MEMORY.md":                          whole,
		"deploy.md":                          whole[:10],
		".teammemd-0123456789abcdef.tmp":     "half",
		"runbooks/.teammemd-case-0a1b.probe": "",
		"notes (conflicted copy).md":         whole,
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &side{name: "alice", d: &proclab.Daemon{Dir: dir}}
	ev := evidence{written: map[string]save{api.EntryChecksum(whole): {side: "alice", key: "MEMORY.md", seq: 1}}}
	var got tally
	(&rig{}).checkDir(s, ev, &got)
	want := []string{
		"torn file: alice's deploy.md",
		"extra file: alice's team directory holds notes (conflicted copy).md",
		"temp litter: alice's team directory holds 2 temporary files of the engine after the final restart and settle: .teammemd-0123456789abcdef.tmp, runbooks/.teammemd-case-0a1b.probe",
	}
	if len(got.violations) != len(want) {
		t.Fatalf("checkDir() violations = %q, want %d", got.violations, len(want))
	}
	for i, v := range got.violations {
		if !strings.HasPrefix(v, want[i]) {
			t.Errorf("checkDir() violation %d = %q, want it to start %q", i, v, want[i])
		}
	}
}
