package fsio

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile and ReplaceFile create the directory, give the file the mode
// asked for even where the umask would narrow it, replace an old file
// whole, leave no temporary file behind, and fail without a change where a
// directory stands in the way.
func TestWriteFile(t *testing.T) {
	t.Run("WriteFile", func(t *testing.T) { testWriteFile(t, WriteFile) })
	t.Run("ReplaceFile", func(t *testing.T) { testWriteFile(t, ReplaceFile) })
}

func testWriteFile(t *testing.T, write func(string, []byte, os.FileMode) error) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	path := filepath.Join(dir, "unit.service")
	for _, tt := range []struct {
		data string
		perm os.FileMode
	}{{"first\n", 0o666}, {"second\n", 0o600}, {"third\n", 0o644}} {
		if err := write(path, []byte(tt.data), tt.perm); err != nil {
			t.Fatalf("WriteFile(%s, %q, %04o) error: %v", path, tt.data, tt.perm, err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != tt.data {
			t.Errorf("after WriteFile(%q): %q, %v, want %q", tt.data, got, err, tt.data)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != tt.perm {
			t.Errorf("mode after WriteFile(%04o) = %v (%v), want %04o", tt.perm, fi.Mode().Perm(), err, tt.perm)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 1 {
		t.Errorf("directory holds %v (%v), want the file alone", entries, err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := write(sub, []byte("x"), 0o600); err == nil {
		t.Errorf("WriteFile(a directory) = nil, want an error")
	}
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		t.Errorf("after WriteFile(a directory): %v, %v, want the directory as it was", fi, err)
	}
}
