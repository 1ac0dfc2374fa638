package control

import (
	"os"
	"path/filepath"
	"testing"
)

// Listen narrows only a directory it creates: a shared directory that
// holds the socket, such as a 1777 one, keeps its mode; the socket is 0600
// either way.
func TestListenModes(t *testing.T) {
	shared := t.TempDir()
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	made := filepath.Join(t.TempDir(), "run", "teammemd")
	for _, tc := range []struct {
		dir  string
		want os.FileMode
	}{{shared, 0o777 | os.ModeSticky}, {made, 0o700}} {
		path := filepath.Join(tc.dir, "x.sock")
		ln, err := Listen(path)
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
		if fi, err := os.Stat(tc.dir); err != nil || fi.Mode()&(os.ModePerm|os.ModeSticky) != tc.want {
			t.Errorf("after Listen(%s) the directory's mode is %v (%v), want %v", path, fi.Mode(), err, tc.want)
		}
	}
}
