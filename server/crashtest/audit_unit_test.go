package crashtest

import (
	"strings"
	"testing"
)

// TestAuditBites shows the audit flag each way a crash could betray a
// write, and pass a history that keeps every write whole.
func TestAuditBites(t *testing.T) {
	p1 := put{writer: 1, seq: 1, repo: "storm/one", outcome: acked, version: 1, sums: map[string]string{"a.md": "sha256:a1", "b.md": "sha256:b1"}}
	p2 := put{writer: 2, seq: 1, repo: "storm/one", outcome: acked, version: 2, sums: map[string]string{"a.md": "sha256:a2"}}
	p3 := put{writer: 3, seq: 1, repo: "storm/one", outcome: unknown, sums: map[string]string{"a.md": "sha256:a3", "c.md": "sha256:c3"}}
	good := func() repoView {
		return view(3, map[string]string{"a.md": "sha256:a3", "b.md": "sha256:b1", "c.md": "sha256:c3"},
			revision{"a.md", "sha256:a1", 1}, revision{"b.md", "sha256:b1", 1},
			revision{"a.md", "sha256:a2", 2},
			revision{"a.md", "sha256:a3", 3}, revision{"c.md", "sha256:c3", 3})
	}
	tests := []struct {
		name string
		v    repoView
		want string // the start of the first complaint; "" for none
	}{
		{"every write whole", good(), ""},
		{"an unanswered PUT never stored", view(2, map[string]string{"a.md": "sha256:a2", "b.md": "sha256:b1"},
			revision{"a.md", "sha256:a1", 1}, revision{"b.md", "sha256:b1", 1}, revision{"a.md", "sha256:a2", 2}), ""},
		{"acknowledged PUT missing", view(1, map[string]string{"a.md": "sha256:a1", "b.md": "sha256:b1"},
			revision{"a.md", "sha256:a1", 1}, revision{"b.md", "sha256:b1", 1}), "acknowledged write lost: writer 2's PUT #1"},
		{"half of an unanswered PUT", view(3, map[string]string{"a.md": "sha256:a3", "b.md": "sha256:b1"},
			revision{"a.md", "sha256:a1", 1}, revision{"b.md", "sha256:b1", 1},
			revision{"a.md", "sha256:a2", 2}, revision{"a.md", "sha256:a3", 3}), "partial PUT visible: writer 3's PUT #1"},
		{"a value nobody sent", view(3, map[string]string{"a.md": "sha256:zz", "b.md": "sha256:b1"},
			revision{"a.md", "sha256:a1", 1}, revision{"b.md", "sha256:b1", 1},
			revision{"a.md", "sha256:a2", 2}, revision{"a.md", "sha256:zz", 3}), "unknown write: a.md at version 3"},
		{"current value not the newest revision", func() repoView {
			v := good()
			v.live["a.md"] = "sha256:a2"
			return v
		}(), "a.md holds sha256:a2, but its newest revision"},
	}
	for _, tt := range tests {
		bad := audit("storm/one", tt.v, []put{p1, p2, p3})
		got := ""
		if len(bad) > 0 {
			got = bad[0]
		}
		if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
			t.Errorf("audit(%s) = %q, want a first complaint starting %q", tt.name, bad, tt.want)
		}
	}
}

// view builds a repo view at version with live values and revisions.
func view(version int64, live map[string]string, revs ...revision) repoView {
	v := repoView{version: version, live: live, byKey: map[string]map[int64]string{}, byVer: map[int64][]revision{}}
	for _, r := range revs {
		if v.byKey[r.key] == nil {
			v.byKey[r.key] = map[int64]string{}
		}
		v.byKey[r.key][r.version] = r.sum
		v.byVer[r.version] = append(v.byVer[r.version], r)
	}
	return v
}
