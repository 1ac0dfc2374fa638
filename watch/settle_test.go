package watch

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// hintAt is a hint and when it arrived, measured from the start of the
// test.
type hintAt struct {
	at    time.Duration
	paths []string
}

func TestAggregatorHints(t *testing.T) {
	const debounce, maxWait, settle = 2 * time.Second, 10 * time.Second, 250 * time.Millisecond
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name  string
		steps []step
		want  []hintAt
	}{
		{
			name:  "a change is hinted once quiet for the settle time",
			steps: []step{{0, event{path: "a.md"}}, {ms(100), event{path: "b.md"}}},
			want:  []hintAt{{ms(350), []string{"a.md", "b.md"}}},
		},
		{
			name: "changes closer than the settle time wait for quiet",
			steps: []step{
				{0, event{path: "a.md"}}, {ms(200), event{path: "b.md"}}, {ms(200), event{path: "c.md"}},
			},
			want: []hintAt{{ms(650), []string{"a.md", "b.md", "c.md"}}},
		},
		{
			name:  "each quiet spell hints what changed since the last hint",
			steps: []step{{0, event{path: "a.md"}}, {ms(500), event{path: "b.md"}}},
			want:  []hintAt{{ms(250), []string{"a.md"}}, {ms(750), []string{"b.md"}}},
		},
		{
			name:  "a rescan is never hinted",
			steps: []step{{0, event{rescan: true}}},
		},
		{
			name:  "a change after the batch is hinted anew",
			steps: []step{{0, event{path: "a.md"}}, {3 * time.Second, event{path: "a.md"}}},
			want:  []hintAt{{ms(250), []string{"a.md"}}, {ms(3250), []string{"a.md"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				got := runHintScript(t, newAggregator(debounce, maxWait), settle, tt.steps, 10*time.Second)
				if !equalHints(got, tt.want) {
					t.Errorf("hints(%v) = %v, want %v", tt.steps, got, tt.want)
				}
			})
		})
	}
}

// TestAggregatorHintsMergeAndDrop checks that hints not taken merge, that
// the batch drops those not taken by then, and that a batch still names
// every path hinted.
func TestAggregatorHintsMergeAndDrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := make(chan event)
		out := make(chan Batch)
		hints := make(chan []string)
		go newAggregator(2*time.Second, 10*time.Second).withHints(250*time.Millisecond, hints).run(t.Context(), in, out)
		in <- event{path: "a.md"}
		time.Sleep(500 * time.Millisecond)
		in <- event{path: "b.md"}
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		if got, want := <-hints, []string{"a.md", "b.md"}; !slices.Equal(got, want) {
			t.Errorf("merged hint = %v, want %v", got, want)
		}
		in <- event{path: "c.md"}
		time.Sleep(3 * time.Second) // c is hinted and not taken; then the batch is due
		if b := <-out; !slices.Equal(b.Paths, []string{"a.md", "b.md", "c.md"}) {
			t.Errorf("batch = %v, want every path", b.Paths)
		}
		synctest.Wait()
		select {
		case h := <-hints:
			t.Errorf("hint %v after its batch, want none", h)
		default:
		}
	})
}

// TestAggregatorNoHints checks that a settle time not shorter than the
// debounce, or none, gives no hints.
func TestAggregatorNoHints(t *testing.T) {
	for _, settle := range []time.Duration{0, time.Second, 2 * time.Second} {
		synctest.Test(t, func(t *testing.T) {
			steps := []step{{0, event{path: "a.md"}}}
			if got := runHintScript(t, newAggregator(time.Second, 5*time.Second), settle, steps, 5*time.Second); len(got) != 0 {
				t.Errorf("settle %v: hints %v, want none", settle, got)
			}
		})
	}
}

// runHintScript is record's hints, taking the batches.
func runHintScript(t *testing.T, a *aggregator, settle time.Duration, steps []step, horizon time.Duration) []hintAt {
	t.Helper()
	_, hints := record(t, a, settle, steps, horizon)
	return hints
}

func equalHints(a, b []hintAt) bool {
	return slices.EqualFunc(a, b, func(x, y hintAt) bool { return x.at == y.at && slices.Equal(x.paths, y.paths) })
}
