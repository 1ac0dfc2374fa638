package memsync

import (
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// TestWalkLocalFollowsSyncableRule: the scan finds exactly the files whose
// keys api.IsSyncableKey accepts, the rule the pull and the restore use.
func TestWalkLocalFollowsSyncableRule(t *testing.T) {
	p := &peer{dir: t.TempDir()}
	keys := []string{
		"a.md", "b.txt", "c.MD", "d.markdown", "e", "f.md.bak", ".g.md",
		"sub/h.md", "sub/.i.md", ".dir/j.md", "sub/.dir/k.txt", "sub/deeper/l.txt",
	}
	var want []string
	for _, k := range keys {
		p.write(t, k, k+"\n")
		if api.IsSyncableKey(k) {
			want = append(want, k)
		}
	}
	td, err := openTeamDir(p.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer td.close()
	found, _, err := td.walkFrom(".")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.key)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("walkFrom(\".\") found %v, want %v", got, want)
	}
}
