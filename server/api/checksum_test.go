package api

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func TestEntryChecksum(t *testing.T) {
	tests := []struct{ value, want string }{
		{"", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"a\r\nb", sha("a\r\nb")},     // no CRLF folding
		{"\ufeffhi", sha("\ufeffhi")}, // BOM kept
		{"a\r\nb", "sha256:" + hex.EncodeToString(func() []byte { s := sha256.Sum256([]byte("a\r\nb")); return s[:] }())},
	}
	for _, tc := range tests {
		if got := EntryChecksum(tc.value); got != tc.want {
			t.Errorf("EntryChecksum(%q) = %s, want %s", tc.value, got, tc.want)
		}
		if got := EntryChecksumBytes([]byte(tc.value)); got != tc.want {
			t.Errorf("EntryChecksumBytes(%q) = %s, want %s", tc.value, got, tc.want)
		}
	}
	if got := EntryChecksumBytes(nil); got != EmptyRepoChecksum {
		t.Errorf("EntryChecksumBytes(nil) = %s, want %s", got, EmptyRepoChecksum)
	}
	if EntryChecksum("a\r\nb") == EntryChecksum("a\nb") {
		t.Error("EntryChecksum folds CRLF, want byte-exact")
	}
}

func TestRepoChecksum(t *testing.T) {
	a, b := EntryChecksum("A"), EntryChecksum("B")
	tests := []struct {
		name    string
		entries map[string]string
		deleted map[string]int64
		want    string
	}{
		{"empty", nil, nil, EmptyRepoChecksum},
		{"one", map[string]string{"MEMORY.md": a}, nil, sha("MEMORY.md\x00" + a + "\n")},
		{
			"byte order, uppercase first",
			map[string]string{"b.md": b, "B.md": a, "a/x.md": a},
			nil,
			sha("B.md\x00" + a + "\n" + "a/x.md\x00" + a + "\n" + "b.md\x00" + b + "\n"),
		},
		{
			"tombstones interleave",
			map[string]string{"a.md": a, "c.md": b},
			map[string]int64{"b.md": 1763800000000},
			sha("a.md\x00" + a + "\n" + "b.md\x00deleted\n" + "c.md\x00" + b + "\n"),
		},
		{
			"live wins over tombstone",
			map[string]string{"a.md": a},
			map[string]int64{"a.md": 1},
			sha("a.md\x00" + a + "\n"),
		},
		{
			"non-ASCII sorts after ASCII",
			map[string]string{"é.md": a, "z.md": b},
			nil,
			sha("z.md\x00" + b + "\n" + "é.md\x00" + a + "\n"),
		},
	}
	for _, tc := range tests {
		if got := RepoChecksum(tc.entries, tc.deleted); got != tc.want {
			t.Errorf("RepoChecksum(%s) = %s, want %s", tc.name, got, tc.want)
		}
	}
	if EmptyRepoChecksum != sha("") {
		t.Errorf("EmptyRepoChecksum = %s, want %s", EmptyRepoChecksum, sha(""))
	}
}

func TestStripETag(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"sha256:ab"`, "sha256:ab"},
		{`sha256:ab`, "sha256:ab"},
		{` "sha256:ab" `, "sha256:ab"},
		{`"`, `"`},
		{``, ``},
	}
	for _, tc := range tests {
		if got := StripETag(tc.in); got != tc.want {
			t.Errorf("StripETag(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := StripETag(ETag("sha256:x")); got != "sha256:x" {
		t.Errorf("StripETag(ETag(x)) = %q, want sha256:x", got)
	}
}

// TestAppendRepoLine: lines appended in key order and hashed whole give
// RepoChecksum, as a store that hashes its lines as it goes computes it.
func TestAppendRepoLine(t *testing.T) {
	a, b := EntryChecksum("A"), EntryChecksum("B")
	type line struct {
		key, sum string
		live     bool
	}
	tests := []struct {
		name    string
		lines   []line
		entries map[string]string
		deleted map[string]int64
	}{
		{"empty", nil, nil, nil},
		{"one", []line{{"MEMORY.md", a, true}}, map[string]string{"MEMORY.md": a}, nil},
		{
			"tombstones interleave",
			[]line{{"a.md", a, true}, {"b.md", "", false}, {"c.md", b, true}},
			map[string]string{"a.md": a, "c.md": b},
			map[string]int64{"b.md": 1763800000000},
		},
		{
			"non-ASCII after ASCII",
			[]line{{"B.md", b, true}, {"z.md", "", false}, {"é.md", a, true}},
			map[string]string{"B.md": b, "é.md": a},
			map[string]int64{"z.md": 7},
		},
	}
	for _, tc := range tests {
		var buf []byte
		for _, l := range tc.lines {
			buf = AppendRepoLine(buf, l.key, l.sum, l.live)
		}
		sum := sha256.Sum256(buf)
		got, want := ChecksumPrefix+hex.EncodeToString(sum[:]), RepoChecksum(tc.entries, tc.deleted)
		if got != want {
			t.Errorf("SHA-256 of the AppendRepoLine lines (%s) = %s, want RepoChecksum %s", tc.name, got, want)
		}
	}
	if got := string(AppendRepoLine([]byte("x"), "k", a, false)); got != "xk\x00deleted\n" {
		t.Errorf("AppendRepoLine(tombstone) = %q, want %q", got, "xk\x00deleted\n")
	}
}

// BenchmarkEntryChecksum hashes a note of a typical size held as a string
// and as bytes.
func BenchmarkEntryChecksum(b *testing.B) {
	value := strings.Repeat("Deploys go out on Tuesdays, after the review.\n", 80)
	data := []byte(value)
	b.Run("string", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			EntryChecksum(value)
		}
	})
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			EntryChecksumBytes(data)
		}
	})
}
