package watch

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// step is one scripted input of an aggregator test: after waiting `after`
// since the previous step, send the event.
type step struct {
	after time.Duration
	ev    event
}

// batchAt is an expected output: the batch and when it arrives, measured
// from the start of the test.
type batchAt struct {
	at    time.Duration
	batch Batch
}

func TestAggregatorTiming(t *testing.T) {
	const debounce, maxWait = 2 * time.Second, 10 * time.Second
	tests := []struct {
		name  string
		steps []step
		want  []batchAt
	}{
		{
			name:  "single change waits the debounce",
			steps: []step{{0, event{path: "a.md"}}},
			want:  []batchAt{{2 * time.Second, Batch{Paths: []string{"a.md"}}}},
		},
		{
			name: "trailing debounce restarts on each change",
			steps: []step{
				{0, event{path: "a.md"}},
				{1500 * time.Millisecond, event{path: "b.md"}},
				{1500 * time.Millisecond, event{path: "a.md"}},
			},
			want: []batchAt{{5 * time.Second, Batch{Paths: []string{"a.md", "b.md"}}}},
		},
		{
			name:  "continuous edits are capped by max wait",
			steps: everySecond("a.md", 14),
			want: []batchAt{
				{10 * time.Second, Batch{Paths: []string{"a.md"}}},
				{15 * time.Second, Batch{Paths: []string{"a.md"}}},
			},
		},
		{
			name: "separate bursts give separate batches",
			steps: []step{
				{0, event{path: "a.md"}},
				{3 * time.Second, event{path: "sub/b.md"}},
			},
			want: []batchAt{
				{2 * time.Second, Batch{Paths: []string{"a.md"}}},
				{5 * time.Second, Batch{Paths: []string{"sub/b.md"}}},
			},
		},
		{
			// The periodic safety rescan is no change of the user's: it
			// joins the batch due and does not hold back a save made just
			// before it.
			name: "rescan joins the pending changes without moving their deadline",
			steps: []step{
				{0, event{path: "a.md"}},
				{time.Second, event{rescan: true}},
			},
			want: []batchAt{{2 * time.Second, Batch{Paths: []string{"a.md"}, Rescan: true}}},
		},
		{
			name:  "rescan alone waits the debounce",
			steps: []step{{0, event{rescan: true}}},
			want:  []batchAt{{2 * time.Second, Batch{Rescan: true}}},
		},
		{
			name: "a change after a rescan restarts the debounce",
			steps: []step{
				{0, event{rescan: true}},
				{time.Second, event{path: "a.md"}},
			},
			want: []batchAt{{3 * time.Second, Batch{Paths: []string{"a.md"}, Rescan: true}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				got := runScript(t, debounce, maxWait, tt.steps, 30*time.Second)
				if !equalBatches(got, tt.want) {
					t.Errorf("aggregate(%v) = %v, want %v", tt.steps, got, tt.want)
				}
			})
		})
	}
}

// everySecond returns n changes of path, one per second starting at 0.
func everySecond(path string, n int) []step {
	steps := []step{{0, event{path: path}}}
	for range n - 1 {
		steps = append(steps, step{time.Second, event{path: path}})
	}
	return steps
}

// runScript feeds steps to an aggregator inside a synctest bubble and
// records every batch with its arrival time, until horizon.
func runScript(t *testing.T, debounce, maxWait time.Duration, steps []step, horizon time.Duration) []batchAt {
	t.Helper()
	batches, _ := record(t, newAggregator(debounce, maxWait), 0, steps, horizon)
	return batches
}

// record feeds steps to a, with hints after settle (none when zero), and
// records every batch and every hint with its arrival time, measured from
// the start, until horizon.
func record(t *testing.T, a *aggregator, settle time.Duration, steps []step, horizon time.Duration) ([]batchAt, []hintAt) {
	t.Helper()
	hints := make(chan []string)
	batches, hinted, _ := recordAll(t, a.withHints(settle, hints), hints, nil, steps, horizon)
	return batches, hinted
}

// recordAll feeds steps to a, which offers its hints on hints and its
// notices on notices (nil when it offers none), and returns its batches,
// hints and notices, each with when it came.
func recordAll(t *testing.T, a *aggregator, hints, notices chan []string, steps []step, horizon time.Duration) ([]batchAt, []hintAt, []hintAt) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	in := make(chan event)
	out := make(chan Batch)
	start := time.Now()
	go a.run(ctx, in, out)
	var batches []batchAt
	var hinted, noticed []hintAt
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for {
			select {
			case b := <-out:
				batches = append(batches, batchAt{time.Since(start), b})
			case h := <-hints:
				hinted = append(hinted, hintAt{time.Since(start), h})
			case n := <-notices:
				noticed = append(noticed, hintAt{time.Since(start), n})
			case <-ctx.Done():
				return
			}
		}
	}()
	for _, s := range steps {
		time.Sleep(s.after)
		in <- s.ev
	}
	time.Sleep(horizon - time.Since(start))
	cancel()
	<-collected
	return batches, hinted, noticed
}

func equalBatches(a, b []batchAt) bool {
	return slices.EqualFunc(a, b, func(x, y batchAt) bool {
		return x.at == y.at && x.batch.Rescan == y.batch.Rescan && slices.Equal(x.batch.Paths, y.batch.Paths)
	})
}

// TestAggregatorSlowConsumer checks that batches not yet taken merge, and
// that the aggregator keeps reading events while a batch waits.
func TestAggregatorSlowConsumer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := make(chan event)
		out := make(chan Batch)
		go newAggregator(time.Second, 5*time.Second).run(t.Context(), in, out)
		in <- event{path: "a.md"}
		time.Sleep(2 * time.Second) // first batch is ready, nobody reads
		in <- event{path: "b.md"}   // must not block
		time.Sleep(2 * time.Second)
		synctest.Wait()
		got := <-out
		want := []string{"a.md", "b.md"}
		if !slices.Equal(got.Paths, want) {
			t.Errorf("merged batch = %v, want %v", got.Paths, want)
		}
		select {
		case b := <-out:
			t.Errorf("extra batch %v, want none", b)
		default:
		}
	})
}

// TestAggregatorStops checks that run returns on cancellation and on a
// closed input, even with a batch pending.
func TestAggregatorStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		in := make(chan event)
		done := make(chan struct{})
		go func() {
			newAggregator(time.Second, time.Second).run(ctx, in, make(chan Batch))
			close(done)
		}()
		in <- event{path: "a.md"}
		time.Sleep(2 * time.Second)
		cancel()
		<-done

		in2 := make(chan event)
		done2 := make(chan struct{})
		go func() {
			newAggregator(time.Second, time.Second).run(t.Context(), in2, make(chan Batch))
			close(done2)
		}()
		close(in2)
		<-done2
	})
}

// TestAggregatorLeftover checks that run, as it stops, returns what no
// batch delivered: a batch not taken, the changes still in the debounce
// and a rescan asked for, on cancellation and on a closed input alike.
func TestAggregatorLeftover(t *testing.T) {
	for _, closeIn := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			in := make(chan event, 1)
			left := make(chan Batch)
			go func() { left <- newAggregator(time.Second, time.Second).run(ctx, in, make(chan Batch)) }()
			in <- event{path: "b.md"}
			time.Sleep(2 * time.Second) // a batch is ready, nobody takes it
			in <- event{path: "a.md"}
			synctest.Wait()
			in <- event{rescan: true} // queued as run stops
			if closeIn {
				close(in)
			} else {
				cancel()
			}
			got := <-left
			cancel()
			if want := []string{"a.md", "b.md"}; !slices.Equal(got.Paths, want) || !got.Rescan {
				t.Errorf("run() left = %+v, want paths %v and a rescan", got, want)
			}
		})
	}
}
