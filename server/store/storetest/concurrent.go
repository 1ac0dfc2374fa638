package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// testAtomicWrites checks that readers never see part of a write: every
// write sets all keys to the same round number.
func testAtomicWrites(t *testing.T, s store.Store) {
	const rounds, keys, readers = 30, 6, 3
	ctx := context.Background()
	write := func(round int) store.Write {
		w := store.Write{Repo: repo, Entries: map[string]string{}, Subject: "ann", Time: at(round)}
		for k := range keys {
			w.Entries[fmt.Sprintf("k%d.md", k)] = strconv.Itoa(round)
		}
		return w
	}
	apply(t, s, write(0))
	writeWhileReading(t, s, rounds, readers, write, func() error { return checkAllSame(ctx, s) })
	if got := snapshot(t, s, repo).Version; got != rounds+1 {
		t.Errorf("Snapshot.Version = %d, want %d", got, rounds+1)
	}
}

func checkAllSame(ctx context.Context, s store.Store) error {
	snap, err := s.Snapshot(ctx, repo, true)
	if err != nil {
		return fmt.Errorf("Snapshot() error = %w", err)
	}
	if got, want := snap.Checksum, repoSum(snap.EntryChecksums, snap.Deleted); got != want {
		return fmt.Errorf("Snapshot().Checksum = %s, want %s", got, want)
	}
	want := snap.Entries["k0.md"]
	for k, v := range snap.Entries {
		if v != want {
			return fmt.Errorf("Snapshot().Entries[%s] = %q, want %q like k0.md: a partial write", k, v, want)
		}
	}
	if strconv.Itoa(int(snap.Version-1)) != want {
		return fmt.Errorf("Snapshot() v%d holds round %s, want round %d", snap.Version, want, snap.Version-1)
	}
	return nil
}

// testConcurrentIfMatch races writers that all hold the same checksum:
// exactly one wins each round, the others get ErrPrecondition.
func testConcurrentIfMatch(t *testing.T, s store.Store) {
	const writers, rounds = 8, 10
	ctx := context.Background()
	cur := apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"k.md": "start"}, Time: at(0)})
	for round := 1; round <= rounds; round++ {
		results := make([]store.Result, writers)
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() {
				results[i], errs[i] = s.Apply(ctx, store.Write{
					Repo: repo, IfMatch: cur.Checksum, Subject: "writer" + strconv.Itoa(i), Time: at(round),
					Entries: map[string]string{"k.md": fmt.Sprintf("round %d writer %d", round, i)},
				})
			})
		}
		wg.Wait()
		winners := 0
		for i, err := range errs {
			switch {
			case err == nil:
				winners++
				cur = results[i]
			case !errors.Is(err, store.ErrPrecondition):
				t.Fatalf("round %d: Apply(writer %d) error = %v, want nil or ErrPrecondition", round, i, err)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d writers won, want exactly 1", round, winners)
		}
		if cur.Version != int64(round+1) {
			t.Errorf("round %d: winner's Version = %d, want %d", round, cur.Version, round+1)
		}
	}
	if got := snapshot(t, s, repo); got.Checksum != cur.Checksum || got.Version != rounds+1 {
		t.Errorf("Snapshot() = v%d %s, want the last winner's v%d %s", got.Version, got.Checksum, rounds+1, cur.Checksum)
	}
}

// testNoLostUpdate has goroutines increment one counter with
// read-modify-write under IfMatch, retrying on ErrPrecondition.
func testNoLostUpdate(t *testing.T, s store.Store) {
	const workers, increments = 6, 15
	ctx := context.Background()
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"count.txt": "0"}, Time: at(0)})
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range increments {
				if err := increment(ctx, s); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	snap := snapshot(t, s, repo)
	if got, want := snap.Entries["count.txt"], strconv.Itoa(workers*increments); got != want {
		t.Errorf("count.txt = %s, want %s", got, want)
	}
	if got, want := snap.Version, int64(workers*increments+1); got != want {
		t.Errorf("Snapshot.Version = %d, want %d", got, want)
	}
}

// increment adds one to count.txt, retrying a bounded number of times.
func increment(ctx context.Context, s store.Store) error {
	for range 1000 {
		snap, err := s.Snapshot(ctx, repo, true)
		if err != nil {
			return fmt.Errorf("Snapshot() error = %w", err)
		}
		n, err := strconv.Atoi(snap.Entries["count.txt"])
		if err != nil {
			return fmt.Errorf("count.txt = %q: %w", snap.Entries["count.txt"], err)
		}
		_, err = s.Apply(ctx, store.Write{Repo: repo, IfMatch: snap.Checksum, Subject: "ann", Time: base,
			Entries: map[string]string{"count.txt": strconv.Itoa(n + 1)}})
		if err == nil {
			return nil
		}
		if !errors.Is(err, store.ErrPrecondition) {
			return fmt.Errorf("Apply() error = %w", err)
		}
	}
	return errors.New("increment: no success in 1000 attempts")
}

// writeWhileReading applies write(1) to write(rounds) to s while readers
// goroutines call check over and over; the first error of each fails t.
func writeWhileReading(t *testing.T, s store.Store, rounds, readers int, write func(int) store.Write, check func() error) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for range readers {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := check(); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for round := 1; round <= rounds; round++ {
		if _, err := s.Apply(context.Background(), write(round)); err != nil {
			t.Errorf("Apply(round %d) error = %v", round, err)
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
