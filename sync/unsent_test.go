package memsync

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

// TestUnsent checks that Unsent lists what a push would send or delete,
// from the saved state alone, also while the server is away.
func TestUnsent(t *testing.T) {
	srv := servertest.Start(t)
	p := newPeer(t, srv.URL, srv.Token, nil)
	p.write(t, "a.md", "a\n")
	p.write(t, "b.md", "b\n")
	p.write(t, "c.md", "c\n")
	p.write(t, ".hidden.md", "never synced\n")
	steps := []struct {
		name string
		edit func()
		want []string
	}{
		{"never synced", func() {}, []string{"a.md", "b.md", "c.md"}},
		{"after a sync", func() { p.sync(t) }, nil},
		{"edited and deleted, server away", func() {
			srv.Stop()
			p.write(t, "b.md", "b2\n")
			if err := os.Remove(filepath.Join(p.dir, "c.md")); err != nil {
				t.Fatal(err)
			}
		}, []string{"b.md", "c.md"}},
	}
	for _, st := range steps {
		st.edit()
		got, err := p.eng.Unsent()
		if err != nil || !slices.Equal(got, st.want) {
			t.Errorf("%s: Unsent() = %q, %v, want %q", st.name, got, err, st.want)
		}
	}
}
