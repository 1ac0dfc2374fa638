// Package pausebench times an operation the way a save meets it in a
// process that idled since the last one: after a pause, with little of
// the operation's code and data left in the processor's caches.
package pausebench

import (
	"testing"
	"time"
)

// Pause is the quiet before each timed call.
const Pause = 300 * time.Millisecond

// Run calls prepare(i), untimed, then after Pause op on what it made,
// b.N times, and reports the mean time of op alone as µs/unit. Run it
// with a small count (-benchtime 30x): each call waits its pause. An
// error from op fails the benchmark.
func Run[T any](b *testing.B, unit string, prepare func(i int) T, op func(T) error) {
	b.Helper()
	b.StopTimer() // the pauses and the timer's own work stay out
	var total time.Duration
	for i := 0; i < b.N; i++ {
		v := prepare(i)
		time.Sleep(Pause)
		start := time.Now()
		err := op(v)
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/"+unit)
}
