package servertest

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

// FileBytes returns the bytes of the SQLite database at path and of its
// write-ahead log and shared-memory files, those that exist: every byte of
// the database on disk, which a test searches for content that must never
// reach it.
func FileBytes(t testing.TB, path string) []byte {
	t.Helper()
	var out []byte
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if errors.Is(err, fs.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			t.Fatalf("servertest: read database: %v", err)
		}
		out = append(out, b...)
	}
	return out
}
