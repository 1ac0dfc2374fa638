package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/teammemd/teammemd/server/store/storetest"
)

// openTemp opens a fresh store on a file in a temporary directory and
// closes it when the test ends.
func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "data", FileName), Options{})
	return storetest.CloseAtEnd(t, s, err)
}

func TestConformance(t *testing.T) {
	storetest.RunBackend(t, openTemp)
}

func TestPersonalConformance(t *testing.T) {
	storetest.RunPersonal(t, func(t *testing.T) storetest.PersonalStore { return openTemp(t) })
}

// TestWriterPragmas reads back the settings the writer's durability and
// erasure rest on from its connection, and that it maps no file.
func TestWriterPragmas(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	for _, tc := range []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"secure_delete", "1"},
		{"mmap_size", "0"}, // a read error stays an error, never a fault
	} {
		var got string
		if err := s.wdb.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", tc.pragma, err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %s, want %s", tc.pragma, got, tc.want)
		}
	}
}

func TestReadConnectionsKeepASmallPageCache(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "db.sqlite"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.rdb.QueryRowContext(context.Background(), "PRAGMA cache_size").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != -readCacheKiB {
		t.Errorf("a read connection's cache_size = %d, want %d (KiB): a reader drops its whole cache after each commit", n, -readCacheKiB)
	}
}
