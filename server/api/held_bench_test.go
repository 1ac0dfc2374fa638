package api

import (
	"fmt"
	"testing"

	"github.com/teammemd/teammemd/internal/pausebench"
)

// BenchmarkChangesAfterPause applies a change wait's answer naming one
// saved note to the whole hashes of a repo of 1,500 notes after 300 ms
// of quiet, as a teammate's daemon does when a save wakes its parked
// wait: "copy" copies the hashes and takes the whole repo checksum then
// (applyByCopy, what an answer cost before Held), "held" applies it to a
// Held made before the pause. Its figure is µs/apply, the applies alone
// (pausebench.Run).
func BenchmarkChangesAfterPause(b *testing.B) {
	held := repoOf1500()
	answer := func(i int) HashesResponse {
		c := HashesResponse{ChangedSince: held.Checksum, EntryChecksums: map[string]string{"MEMORY.md": EntryChecksum(fmt.Sprint(i))}}
		_, _, c.Checksum = applyByCopy(held, c)
		return c
	}
	b.Run("copy", func(b *testing.B) {
		pausebench.Run(b, "apply", answer, func(c HashesResponse) error {
			if _, _, sum := applyByCopy(held, c); sum != c.Checksum {
				return ErrChangesMismatch
			}
			return nil
		})
	})
	type ready struct {
		p *Held
		c HashesResponse
	}
	b.Run("held", func(b *testing.B) {
		pausebench.Run(b, "apply", func(i int) ready { return ready{NewHeld(held), answer(i)} }, func(r ready) error {
			_, err := r.p.Apply(r.c)
			return err
		})
	})
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
