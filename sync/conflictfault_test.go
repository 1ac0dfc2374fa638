package memsync

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/teammemd/teammemd/server/servertest"
)

// conflictFiles lists every file under p's conflict directory.
func conflictFiles(t *testing.T, p *peer) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(p.state, "conflicts"), func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return err
	})
	must(t, err)
	return out
}

// editedOnBothSides syncs five notes to a and b, then changes them on a
// (pushed) and on b (not pushed), so b's next pull needs five conflict
// copies.
func editedOnBothSides(t *testing.T, srv *servertest.Server) (a, b *peer, keys []string) {
	a = newPeer(t, srv.URL, srv.Token, nil)
	b = newPeer(t, srv.URL, srv.Token, nil)
	keys = []string{"k1.md", "k2.md", "k3.md", "k4.md", "sub/k5.md"}
	for _, k := range keys {
		a.write(t, k, "v1\n")
	}
	a.sync(t)
	b.sync(t)
	for _, k := range keys {
		a.write(t, k, "teammate\n")
		b.write(t, k, "local edit of "+k+"\n")
	}
	a.sync(t)
	return a, b, keys
}
