package sqlite

import (
	"testing"

	"github.com/teammemd/teammemd/server/store/storetest"
)

// BenchmarkSnapshotOf measures the read of a full pull that names its
// keys, of 1 and of 256 keys, on an unchanged repo of 1,000 entries of
// 4 KB, against the read of every value it replaces.
func BenchmarkSnapshotOf(b *testing.B) {
	storetest.BenchSnapshotOf(b, benchStore(b))
}
