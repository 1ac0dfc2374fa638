package memsync

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"

	"github.com/teammemd/teammemd/sync/claude/claudetest"
	"github.com/teammemd/teammemd/sync/fsio"
)

// newNotes returns the notes of a fresh team directory with the real
// scanner, and the directory.
func newNotes(t *testing.T) (*Notes, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "team")
	return NewNotes(dir, realScanner(t)), dir
}

// leftovers lists the engine's temporary and aside files under dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), fsio.TempPrefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func sum(s string) string { return api.EntryChecksum(s) }

func TestNotesWrite(t *testing.T) {
	tests := []struct {
		name     string
		existing string // "" for no file
		ifMatch  string
		content  string
		want     string // the file's content after the write
		current  string // the *StaleError's Current, "-" for no stale error
	}{
		{"create", "", "", "new\n", "new\n", "-"},
		{"create over an existing note", "old\n", "", "new\n", "old\n", sum("old\n")},
		{"replace the version read", "old\n", sum("old\n"), "new\n", "new\n", "-"},
		{"replace, bare hex", "old\n", strings.TrimPrefix(sum("old\n"), api.ChecksumPrefix), "new\n", "new\n", "-"},
		{"replace a changed note", "theirs\n", sum("old\n"), "new\n", "theirs\n", sum("theirs\n")},
		{"replace a deleted note", "", sum("old\n"), "new\n", "<missing>", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, dir := newNotes(t)
			if tt.existing != "" {
				claudetest.WriteNote(t, dir, "sub/a.md", tt.existing)
			}
			got, err := n.Write(context.Background(), "sub/a.md", []byte(tt.content), tt.ifMatch)
			var se *StaleError
			switch {
			case tt.current == "-" && err != nil:
				t.Fatalf("Write = %v, want no error", err)
			case tt.current == "-" && got != sum(tt.content):
				t.Errorf("Write = %s, want %s", got, sum(tt.content))
			case tt.current != "-" && !errors.As(err, &se):
				t.Fatalf("Write = %q, %v, want a *StaleError", got, err)
			case tt.current != "-" && se.Current != tt.current:
				t.Errorf("Write: StaleError.Current = %q, want %q", se.Current, tt.current)
			}
			if c := claudetest.ReadNote(t, dir, "sub/a.md"); c != tt.want {
				t.Errorf("after Write the file holds %q, want %q", c, tt.want)
			}
			if l := leftovers(t, dir); len(l) > 0 {
				t.Errorf("Write left %v behind", l)
			}
		})
	}
}

func TestNotesWriteRefused(t *testing.T) {
	aws := scantest.AWSKey()
	tests := []struct {
		name, key, content, ifMatch string
		rule                        string // the *SecretError's rule, "" for another error
	}{
		{"secret in the content", "deploy.md", scantest.AWSNote(aws), "", scantest.AWSRule},
		{"secret in the name", "creds/" + aws + ".md", "plain\n", "", scantest.AWSRule},
		{"dot segment", "../escape.md", "x\n", "", ""},
		{"hidden", ".hidden.md", "x\n", "", ""},
		{"not a note", "data.json", "{}\n", "", ""},
		{"absolute", "/etc/passwd.md", "x\n", "", ""},
		{"not UTF-8", "bin.md", "\xff\xfe", "", ""},
		{"malformed sha256", "a.md", "x\n", "sha256:abc", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, dir := newNotes(t)
			_, err := n.Write(context.Background(), tt.key, []byte(tt.content), tt.ifMatch)
			var se *SecretError
			switch {
			case err == nil:
				t.Fatalf("Write(%q) = nil, want an error", tt.key)
			case tt.rule != "" && (!errors.As(err, &se) || !slices.Contains(se.Rules, tt.rule)):
				t.Fatalf("Write(%q) = %v, want a *SecretError naming %s", tt.key, err, tt.rule)
			case strings.Contains(err.Error(), aws):
				t.Errorf("Write(%q) = %v: the error shows the secret", tt.key, err)
			}
			if _, serr := os.Stat(dir); !errors.Is(serr, fs.ErrNotExist) {
				t.Errorf("Write(%q) refused, but the team directory was created", tt.key)
			}
		})
	}
}

func TestNotesDelete(t *testing.T) {
	tests := []struct {
		name, existing, ifMatch string
		want                    string // the file's content after the deletion
		current                 string // the *StaleError's Current, "-" for none
	}{
		{"the version read", "old\n", sum("old\n"), "<missing>", "-"},
		{"a changed note", "theirs\n", sum("old\n"), "theirs\n", sum("theirs\n")},
		{"a missing note", "", sum("old\n"), "<missing>", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, dir := newNotes(t)
			claudetest.WriteNote(t, dir, "keep.md", "keep\n")
			if tt.existing != "" {
				claudetest.WriteNote(t, dir, "a.md", tt.existing)
			}
			err := n.Delete("a.md", tt.ifMatch)
			var se *StaleError
			switch {
			case tt.current == "-" && err != nil:
				t.Fatalf("Delete = %v, want no error", err)
			case tt.current != "-" && !errors.As(err, &se):
				t.Fatalf("Delete = %v, want a *StaleError", err)
			case tt.current != "-" && se.Current != tt.current:
				t.Errorf("Delete: StaleError.Current = %q, want %q", se.Current, tt.current)
			}
			if c := claudetest.ReadNote(t, dir, "a.md"); c != tt.want {
				t.Errorf("after Delete the file holds %q, want %q", c, tt.want)
			}
			if l := leftovers(t, dir); len(l) > 0 {
				t.Errorf("Delete left %v behind", l)
			}
		})
	}
}

func TestNotesDeleteNeedsPrecondition(t *testing.T) {
	n, dir := newNotes(t)
	claudetest.WriteNote(t, dir, "a.md", "x\n")
	if err := n.Delete("a.md", ""); err == nil {
		t.Fatal(`Delete("a.md", "") = nil, want an error`)
	}
	if c := claudetest.ReadNote(t, dir, "a.md"); c != "x\n" {
		t.Errorf("after a refused Delete the file holds %q", c)
	}
}

func TestNotesListAndRead(t *testing.T) {
	n, dir := newNotes(t)
	if got, err := n.List(); err != nil || len(got) != 0 {
		t.Fatalf("List of a missing team directory = %v, %v, want none", got, err)
	}
	claudetest.WriteNote(t, dir, "MEMORY.md", "index\n")
	claudetest.WriteNote(t, dir, "sub/b.txt", "b\n")
	claudetest.WriteNote(t, dir, "data.json", "{}\n")
	claudetest.WriteNote(t, dir, ".hidden/c.md", "c\n")
	got, err := n.List()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range got {
		keys = append(keys, f.Key)
	}
	if want := []string{"MEMORY.md", "sub/b.txt"}; !slices.Equal(keys, want) {
		t.Errorf("List = %v, want %v", keys, want)
	}
	data, f, err := n.Read("sub/b.txt")
	if err != nil || string(data) != "b\n" || f.Size != 2 {
		t.Errorf("Read(sub/b.txt) = %q, %+v, %v, want \"b\\n\" of 2 bytes", data, f, err)
	}
	if _, _, err := n.Read("gone.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read(gone.md) = %v, want fs.ErrNotExist", err)
	}
}

func TestNoteSum(t *testing.T) {
	hex := strings.Repeat("ab", 32)
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"", "", true},
		{"sha256:" + hex, "sha256:" + hex, true},
		{strings.ToUpper(hex), "sha256:" + hex, true},
		{"sha256:" + hex[:10], "", false},
		{"md5:" + hex, "", false},
		{strings.Repeat("zz", 32), "", false},
	}
	for _, tt := range tests {
		got, err := NoteSum(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("NoteSum(%q) = %q, %v, want %q (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
