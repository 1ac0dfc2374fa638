package daemon

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A name that is not valid UTF-8 reaches the status's JSON with its
// invalid bytes as \xNN, in every field that can hold one, and the status
// the daemon keeps is left as it was.
func TestStatusJSONKeepsInvalidNames(t *testing.T) {
	bad := "notes/bad\xffname.md"
	now := time.Now().UTC()
	st := Status{PID: 1, Started: now, Repos: []RepoStatus{{
		Repo: "acme/app", Dir: "/home/a/team\xfe", LastPull: &OpResult{Time: now, Result: "read " + bad},
		Pending: []string{"ok.md", bad}, Held: []Held{{Path: bad, Reason: "invalid key"}},
		Blocked: []Blocked{{Path: bad}}, Conflict: []string{bad}, HeldDeletions: []string{bad},
	}}, Skipped: []Skipped{{Source: "dir " + bad, Reason: "x"}}}
	kept := deepCopyStatus(t, st)
	data, err := json.Marshal(validStatus(st))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `\ufffd`) || strings.Contains(string(data), "\ufffd") {
		t.Errorf("status JSON has U+FFFD for a name:\n%s", data)
	}
	var got Status
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	const shown = `notes/bad\xffname.md`
	r := got.Repos[0]
	for field, v := range map[string]string{
		"dir": r.Dir, "pending": r.Pending[1], "held": r.Held[0].Path, "blocked": r.Blocked[0].Path,
		"conflicts": r.Conflict[0], "heldDeletions": r.HeldDeletions[0], "lastPull": r.LastPull.Result, "skipped": got.Skipped[0].Source,
	} {
		if !strings.Contains(v, shown) && v != `/home/a/team\xfe` {
			t.Errorf("%s = %q, want the name as %s", field, v, shown)
		}
	}
	if r.Pending[0] != "ok.md" || !got.Started.Equal(now) {
		t.Errorf("valid fields changed: pending %q, started %v", r.Pending[0], got.Started)
	}
	if !reflect.DeepEqual(st, kept) {
		t.Errorf("validStatus changed the status it was given:\n%+v\nwant\n%+v", st, kept)
	}
}

// deepCopyStatus copies the slices and pointers of st the test fills: a
// JSON round trip would change its names.
func deepCopyStatus(t *testing.T, st Status) Status {
	t.Helper()
	repos := make([]RepoStatus, len(st.Repos))
	for i, r := range st.Repos {
		r.Pending = append([]string(nil), r.Pending...)
		r.Held = append([]Held(nil), r.Held...)
		r.Blocked = append([]Blocked(nil), r.Blocked...)
		r.Conflict = append([]string(nil), r.Conflict...)
		r.HeldDeletions = append([]string(nil), r.HeldDeletions...)
		if r.LastPull != nil {
			p := *r.LastPull
			r.LastPull = &p
		}
		repos[i] = r
	}
	st.Repos = repos
	st.Skipped = append([]Skipped(nil), st.Skipped...)
	return st
}
