package api

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkChangesAfterPause applies a change wait's answer naming one
// saved note to the whole hashes of a repo of 1,500 notes after 300 ms
// of quiet, untimed, as a teammate's daemon does when a save wakes its
// parked wait: "copy" copies the hashes and takes the whole repo
// checksum then (applyByCopy, what an answer cost before Held), "held"
// applies it to a Held made before the pause. Run it with a small count
// (-benchtime 30x): each apply waits its pause. Its figure is µs/apply,
// the applies alone.
func BenchmarkChangesAfterPause(b *testing.B) {
	held := repoOf1500()
	answer := func(i int) HashesResponse {
		c := HashesResponse{ChangedSince: held.Checksum, EntryChecksums: map[string]string{"MEMORY.md": EntryChecksum(fmt.Sprint(i))}}
		_, _, c.Checksum = applyByCopy(held, c)
		return c
	}
	apply := map[string]func(HashesResponse) (time.Duration, error){
		"copy": func(c HashesResponse) (time.Duration, error) {
			time.Sleep(300 * time.Millisecond)
			start := time.Now()
			_, _, sum := applyByCopy(held, c)
			if sum != c.Checksum {
				return 0, ErrChangesMismatch
			}
			return time.Since(start), nil
		},
		"held": func(c HashesResponse) (time.Duration, error) {
			p := NewHeld(held)
			time.Sleep(300 * time.Millisecond)
			start := time.Now()
			_, err := p.Apply(c)
			return time.Since(start), err
		},
	}
	for _, name := range []string{"copy", "held"} {
		b.Run(name, func(b *testing.B) {
			b.StopTimer() // the pauses and the timer's own work stay out
			var total time.Duration
			for i := 0; i < b.N; i++ {
				d, err := apply[name](answer(i))
				if err != nil {
					b.Fatal(err)
				}
				total += d
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/apply")
		})
	}
}

// BenchmarkNewHeld makes a Held of the whole hashes of a repo of 1,500
// notes, as a client does each time it sends a change wait; its B/op is
// what the Held adds to the hashes a waiting client holds.
func BenchmarkNewHeld(b *testing.B) {
	held := repoOf1500()
	b.ReportAllocs()
	for b.Loop() {
		NewHeld(held)
	}
}

// repoOf1500 is the whole hashes of a repo of 1,500 notes.
func repoOf1500() HashesResponse {
	held := HashesResponse{EntryChecksums: map[string]string{}, DeletedEntries: map[string]int64{}}
	for i := range 1500 {
		k := fmt.Sprintf("burst/f%05d.md", i)
		held.EntryChecksums[k] = EntryChecksum(k)
	}
	held.Checksum = RepoChecksum(held.EntryChecksums, held.DeletedEntries)
	return held
}
