package scan

import (
	"context"
	"runtime"
	"testing"
)

// BenchmarkNew loads the default ruleset. Besides the time it reports the
// heap a loaded Scanner keeps in use after a collection (live-MB), and the
// same after every recall sample was scanned once (burst-MB), so that
// structures built on first use are counted too.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		newScanner(b, Config{})
	}
	b.StopTimer()
	base := heapInuse()
	s := newScanner(b, Config{CacheMaxEntries: 1})
	b.ReportMetric(megabytes(heapInuse()-base), "live-MB")
	for _, smp := range recallSamples(b) {
		if _, err := s.File(context.Background(), smp.path, []byte(smp.text)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(megabytes(heapInuse()-base), "burst-MB")
	runtime.KeepAlive(s)
}

// heapInuse is runtime.MemStats.HeapInuse after a forced collection.
func heapInuse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

func megabytes(n int64) float64 { return float64(n) / 1e6 }
