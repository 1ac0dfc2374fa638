package personal

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNameMap: a wire key maps back to its path from the map, or by naming
// a known path with another of the keys (a rotation's new lane); a wire
// key of no known path stays unknown; the map is merged with what another
// process saved meanwhile.
func TestNameMap(t *testing.T) {
	k1, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	k2, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m, err := loadNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.learn(map[string]string{k1.EntryKey("p", "a.md"): "a.md"})
	if got, ok := m.path(k2.EntryKey("p", "a.md"), []*Key{k1, k2}, "p"); !ok || got != "a.md" {
		t.Errorf("path(a.md under the other key) = %q, %v, want a.md", got, ok)
	}
	if got, ok := m.path(k1.EntryKey("p", "gone.md"), []*Key{k1, k2}, "p"); ok {
		t.Errorf("path(a path never known) = %q, want unknown", got)
	}
	other, err := loadNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	other.learn(map[string]string{k1.EntryKey("p", "b.md"): "b.md"})
	if err := other.save(); err != nil {
		t.Fatal(err)
	}
	if err := m.save(); err != nil {
		t.Fatal(err)
	}
	again, err := loadNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.md", "b.md"} {
		if got, ok := again.paths[k1.EntryKey("p", p)]; !ok || got != p {
			t.Errorf("saved map lacks %s: %v", p, again.paths)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, namesFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("names file = %v, %v, want mode 0600", fi, err)
	}
}
