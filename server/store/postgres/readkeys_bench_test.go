package postgres

import (
	"context"
	"testing"

	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
	"github.com/teammemd/teammemd/server/store/storetest"
)

// BenchmarkSnapshotOf measures the read of a full pull that names its
// keys, of 1 and of 256 keys, of a repo of 1,000 entries of 4 KB,
// against the read of every value it replaces.
func BenchmarkSnapshotOf(b *testing.B) {
	s, err := Open(context.Background(), pgtest.Schema(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	storetest.BenchSnapshotOf(b, s)
}
