package personal

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

func mustKey(t testing.TB) *Key {
	t.Helper()
	k, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpenRoundTrip(t *testing.T) {
	k := mustKey(t)
	for _, n := range []Note{
		{Project: "github.com/acme/app", Path: "MEMORY.md", Content: []byte("# index\n- [x](x.md)\n")},
		{Project: UserProject, Path: "rules/go.md", Content: nil},
		{Project: "acme/app", Path: "sub/ü.md", Content: bytes.Repeat([]byte{0, 0xff, '\n'}, 5000)},
	} {
		key, value, err := k.Seal(n)
		if err != nil {
			t.Fatalf("Seal(%s): %v", n.Path, err)
		}
		if err := api.ValidateKey(key, api.Limits{}); err != nil {
			t.Errorf("Seal(%s) wire key %q is not a valid key: %v", n.Path, key, err)
		}
		if strings.Contains(key, n.Path) || strings.Contains(value, n.Path) || strings.Contains(value, n.Project) {
			t.Errorf("Seal(%s) leaks the name: key %q", n.Path, key)
		}
		got, by, err := Open([]*Key{mustKey(t), k}, key, value)
		if err != nil {
			t.Fatalf("Open(Seal(%s)): %v", n.Path, err)
		}
		if by != k || got.Project != n.Project || got.Path != n.Path || !bytes.Equal(got.Content, n.Content) {
			t.Errorf("Open(Seal(%s)) = %q %q (%d bytes), want the note back", n.Path, got.Project, got.Path, len(got.Content))
		}
	}
}

func TestSealIsRandomized(t *testing.T) {
	k := mustKey(t)
	n := Note{Project: "acme/app", Path: "a.md", Content: []byte("same")}
	k1, v1, _ := k.Seal(n)
	k2, v2, _ := k.Seal(n)
	if k1 != k2 {
		t.Errorf("wire keys differ for one file: %q, %q", k1, k2)
	}
	if v1 == v2 {
		t.Error("two seals of one note are equal: the server could tell unchanged content apart")
	}
}

func TestOpenRefuses(t *testing.T) {
	k, other := mustKey(t), mustKey(t)
	key, value, err := k.Seal(Note{Project: "acme/app", Path: "a.md", Content: []byte("x")})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _, _ := k.Seal(Note{Project: "acme/app", Path: "b.md"})
	for _, c := range []struct {
		name       string
		keys       []*Key
		key, value string
		want       error
	}{
		{"another key", []*Key{other}, key, value, ErrNoKey},
		{"no key", nil, key, value, ErrNoKey},
		{"moved to another name", []*Key{k}, otherKey, value, nil},
		{"not age", []*Key{k}, key, "hello", nil},
		{"truncated", []*Key{k}, key, value[:len(value)/2], nil},
	} {
		_, _, err := Open(c.keys, c.key, c.value)
		if err == nil {
			t.Errorf("%s: Open succeeded, want an error", c.name)
			continue
		}
		if c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: Open = %v, want %v", c.name, err, c.want)
		}
	}
}

func TestDerivedNamesAreStable(t *testing.T) {
	k := mustKey(t)
	again, err := ParseKey(k.String())
	if err != nil {
		t.Fatal(err)
	}
	other := mustKey(t)
	if again.ID() != k.ID() || again.LaneID("acme/app") != k.LaneID("acme/app") ||
		again.EntryKey("acme/app", "a.md") != k.EntryKey("acme/app", "a.md") {
		t.Error("a parsed key derives other names than the key it came from")
	}
	if other.LaneID("acme/app") == k.LaneID("acme/app") || other.ID() == k.ID() {
		t.Error("two keys derive the same lane or ID")
	}
	if k.LaneID("acme/app") == k.LaneID("acme/web") || k.EntryKey("a", "b/c.md") == k.EntryKey("a/b", "c.md") {
		t.Error("two projects or paths share a name")
	}
	if !api.ValidKeyID(k.ID()) || !api.ValidLaneID(k.LaneID("x/y")) {
		t.Errorf("ID %q or lane %q is not well-formed", k.ID(), k.LaneID("x/y"))
	}
}

func TestParseKeyRejectsJunk(t *testing.T) {
	for _, s := range []string{"", "AGE-SECRET-KEY-1", "hello", "age1qqqq"} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("ParseKey(%q) succeeded", s)
		}
	}
}

func FuzzOpen(f *testing.F) {
	k, err := NewKey()
	if err != nil {
		f.Fatal(err)
	}
	key, value, _ := k.Seal(Note{Project: "p/q", Path: "a.md", Content: []byte("body")})
	f.Add(key, value)
	f.Add(key, "-----BEGIN AGE ENCRYPTED FILE-----\n-----END AGE ENCRYPTED FILE-----\n")
	f.Fuzz(func(t *testing.T, key, value string) {
		n, by, err := Open([]*Key{k}, key, value)
		if err == nil && (by != k || k.EntryKey(n.Project, n.Path) != key) {
			t.Fatalf("Open(%q) opened a note that does not belong under its key", key)
		}
	})
}

func BenchmarkSeal4K(b *testing.B) {
	k := mustKey(b)
	n := Note{Project: "github.com/acme/app", Path: "notes/build.md", Content: bytes.Repeat([]byte("a note line\n"), 342)}
	b.SetBytes(int64(len(n.Content)))
	for b.Loop() {
		if _, _, err := k.Seal(n); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen4K(b *testing.B) {
	k := mustKey(b)
	n := Note{Project: "github.com/acme/app", Path: "notes/build.md", Content: bytes.Repeat([]byte("a note line\n"), 342)}
	key, value, err := k.Seal(n)
	if err != nil {
		b.Fatal(err)
	}
	keys := []*Key{k}
	b.SetBytes(int64(len(n.Content)))
	for b.Loop() {
		if _, _, err := Open(keys, key, value); err != nil {
			b.Fatal(err)
		}
	}
}
