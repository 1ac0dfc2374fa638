package memrelease

import (
	"os"
	"runtime/metrics"
	"testing"
)

// residentExecutableKB is the resident size of the executable's mappings
// that Release drops.
func residentExecutableKB(t *testing.T) int64 {
	t.Helper()
	exe, err := executable()
	if err != nil {
		t.Fatalf("executable() error: %v", err)
	}
	data, err := os.ReadFile(smapsPath)
	if err != nil {
		t.Fatalf("read %s: %v", smapsPath, err)
	}
	var kb int64
	for _, m := range droppable(parseSmaps(string(data)), exe) {
		kb += m.rssKB
	}
	return kb
}

func TestReleaseDropsExecutablePages(t *testing.T) {
	before := residentExecutableKB(t)
	if before == 0 {
		t.Fatal("no resident read-only pages of the executable before Release")
	}
	Release()
	if after := residentExecutableKB(t); after >= before {
		t.Errorf("resident read-only pages of the executable: %d KiB after Release, %d KiB before; want fewer", after, before)
	}
}

// heapReleased reads the heap memory the runtime has returned to the system.
func heapReleased() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sink keeps the buffer below reachable until the test drops it.
var sink []byte

func TestReleaseReturnsFreedHeap(t *testing.T) {
	const size = 64 << 20
	sink = make([]byte, size)
	for i := range sink {
		sink[i] = byte(i)
	}
	before := heapReleased()
	sink = nil
	Release()
	if after := heapReleased(); after < before+size/2 {
		t.Errorf("heap released: %d bytes after Release, %d before; want at least %d more of the %d just freed",
			after, before, size/2, size)
	}
}
