package memindex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Use `make test`, then make_check.", []string{"use", "make", "test", "then", "check"}},
		{"PostgreSQL 16 on port 5432", []string{"postgresql", "16", "on", "port", "5432"}},
		{"Grüße, ÉTÉ", []string{"grüße", "été"}},
		{"  --- ", nil},
		{strings.Repeat("a", 100), []string{strings.Repeat("a", maxTermBytes)}},
	}
	for _, tt := range tests {
		if got := terms(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("terms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// testIndex indexes notes, key to text.
func testIndex(notes map[string]string) *Index {
	ix := New()
	for k, v := range notes {
		ix.Put(k, []byte(v), t0)
	}
	return ix
}

var sample = map[string]string{
	"deploy.md": "---\nname: Deploys\ndescription: how we ship to staging and production\ntype: project\n---\n" +
		"Run make deploy from main.\nStaging deploys need the VPN.\n",
	"db/postgres.md": "---\nname: Database\ndescription: the PostgreSQL setup\ntype: reference\n---\n" +
		"We run PostgreSQL 16.\nMigrations live in db/migrations.\n",
	"testing.md": "---\nname: Tests\ndescription: how to run the tests\ntype: feedback\n---\n" +
		"Use make test; the race detector is on.\nNever mock the database.\n",
	"MEMORY.md": "# Team memory\n- [Deploys](deploy.md)\n",
}

func TestSearch(t *testing.T) {
	ix := testIndex(sample)
	tests := []struct {
		query   string
		keys    []string // the hits' keys, best first
		line    int      // the best hit's line
		snippet string   // the best hit's snippet
	}{
		{"staging deploy", []string{"deploy.md", "MEMORY.md"}, 7, "Staging deploys need the VPN."},
		{"postgres", []string{"db/postgres.md"}, 3, "description: the PostgreSQL setup"},
		{"postgresql 16", []string{"db/postgres.md"}, 6, "We run PostgreSQL 16."},
		{"DATABASE", []string{"db/postgres.md", "testing.md"}, 2, "name: Database"},
		{"team memory", []string{"MEMORY.md"}, 1, "# Team memory"},
		{"mock", []string{"testing.md"}, 7, "Never mock the database."},
		{"kubernetes", nil, 0, ""},
		{"", nil, 0, ""},
		{"de", nil, 0, ""}, // too short to match as a prefix
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, 10)
		var keys []string
		for _, h := range hits {
			keys = append(keys, h.Key)
		}
		if !slices.Equal(keys, tt.keys) {
			t.Errorf("Search(%q) = %v, want %v", tt.query, keys, tt.keys)
			continue
		}
		if len(hits) > 0 && (hits[0].Line != tt.line || hits[0].Snippet != tt.snippet) {
			t.Errorf("Search(%q)[0] = line %d %q, want line %d %q", tt.query, hits[0].Line, hits[0].Snippet, tt.line, tt.snippet)
		}
	}
}

func TestSearchLimit(t *testing.T) {
	ix := testIndex(sample)
	if got := ix.Search("the", 2); len(got) != 2 {
		t.Errorf("Search(the, 2) = %d hits, want 2", len(got))
	}
	if got := ix.Search("the", 0); got != nil {
		t.Errorf("Search(the, 0) = %v, want none", got)
	}
}

func TestPutRemove(t *testing.T) {
	ix := New()
	if added, changed := ix.Put("a.md", []byte("one"), t0); !added || changed {
		t.Errorf("Put(new) = %v, %v, want added", added, changed)
	}
	if added, changed := ix.Put("a.md", []byte("one"), t0.Add(time.Second)); added || changed {
		t.Errorf("Put(same content) = %v, %v, want neither", added, changed)
	}
	if added, changed := ix.Put("a.md", []byte("two"), t0); added || !changed {
		t.Errorf("Put(new content) = %v, %v, want changed", added, changed)
	}
	if got := ix.Search("one", 10); len(got) != 0 {
		t.Errorf("Search(one) after a replace = %v, want none", got)
	}
	if !ix.Remove("a.md") || ix.Remove("a.md") {
		t.Error("Remove(a.md) twice: want true then false")
	}
	if got := ix.Search("two", 10); len(got) != 0 || ix.Len() != 0 {
		t.Errorf("after Remove: Search(two) = %v, Len = %d, want nothing", got, ix.Len())
	}
}

func TestNotesFrontmatter(t *testing.T) {
	ix := testIndex(sample)
	got := ix.Notes("db/")
	if len(got) != 1 || got[0].Name != "Database" || got[0].Description != "the PostgreSQL setup" {
		t.Errorf("Notes(db/) = %+v, want the Database note", got)
	}
}

func TestRefresh(t *testing.T) {
	dir := t.TempDir()
	write := func(key, text string) {
		p := filepath.Join(dir, filepath.FromSlash(key))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "alpha\n")
	write("sub/b.md", "bravo\n")
	write("skip.json", "{}\n")
	src := memsync.NewNotes(dir, nil)
	ix := New()
	ch, err := ix.Refresh(src)
	if err != nil || !slices.Equal(ch.Added, []string{"a.md", "sub/b.md"}) || ix.Len() != 2 {
		t.Fatalf("first Refresh = %+v, %v, want a.md and sub/b.md added", ch, err)
	}
	write("a.md", "alpha two\n")
	os.Remove(filepath.Join(dir, "sub", "b.md"))
	write("c.md", "charlie\n")
	ch, err = ix.RefreshKeys(src, []string{"a.md", "sub/b.md", "c.md"})
	want := Changes{Added: []string{"c.md"}, Changed: []string{"a.md"}, Removed: []string{"sub/b.md"}}
	if err != nil || !slices.Equal(ch.Added, want.Added) || !slices.Equal(ch.Changed, want.Changed) || !slices.Equal(ch.Removed, want.Removed) {
		t.Errorf("RefreshKeys = %+v, %v, want %+v", ch, err, want)
	}
	os.RemoveAll(filepath.Join(dir, "sub"))
	write("sub2/d.md", "delta\n")
	ch, err = ix.RefreshKeys(src, []string{"sub2"})
	if err != nil || !slices.Equal(ch.Added, []string{"sub2/d.md"}) {
		t.Errorf("RefreshKeys(a directory) = %+v, %v, want sub2/d.md added by a full refresh", ch, err)
	}
}

func TestCut(t *testing.T) {
	long := strings.Repeat("x", 100) + " needle " + strings.Repeat("y", 300)
	got := cut(long, 101)
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !strings.Contains(got, "needle") {
		t.Errorf("cut(long line, at needle) = %q, want a cut both ends holding needle", got)
	}
	if got := cut("short line", 0); got != "short line" {
		t.Errorf("cut(short line) = %q, want it whole", got)
	}
	if got := cut(strings.Repeat("é", 150), 100); !strings.HasPrefix(strings.TrimPrefix(got, "…"), "é") {
		t.Errorf("cut(é...) = %q: cut inside a character", got)
	}
}
