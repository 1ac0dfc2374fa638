package watch

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// recordLead runs steps through an aggregator with the given lead and
// returns its notices and when, from the start, each batch came.
func recordLead(t *testing.T, lead time.Duration, steps []step, horizon time.Duration) ([]hintAt, []time.Duration) {
	t.Helper()
	soon := make(chan []string)
	batches, _, notices := recordAll(t, newAggregator(2*time.Second, 10*time.Second).withLead(lead, soon), nil, soon, steps, horizon)
	var at []time.Duration
	for _, b := range batches {
		at = append(at, b.at)
	}
	return notices, at
}

func TestAggregatorLead(t *testing.T) {
	const lead = 30 * time.Millisecond
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name    string
		lead    time.Duration
		steps   []step
		notices []hintAt
		batches []time.Duration
	}{
		{
			name:    "a change is noticed lead before its batch",
			lead:    lead,
			steps:   []step{{0, event{path: "a.md"}}},
			notices: []hintAt{{ms(1970), []string{"a.md"}}}, batches: []time.Duration{ms(2000)},
		},
		{
			name:    "a change after the notice moves it with the deadline",
			lead:    lead,
			steps:   []step{{0, event{path: "a.md"}}, {ms(1980), event{path: "b.md"}}},
			notices: []hintAt{{ms(1970), []string{"a.md"}}, {ms(3950), []string{"a.md", "b.md"}}}, batches: []time.Duration{ms(3980)},
		},
		{
			name:    "changes before the notice give one",
			lead:    lead,
			steps:   []step{{0, event{path: "b.md"}}, {ms(500), event{path: "a.md"}}},
			notices: []hintAt{{ms(2470), []string{"a.md", "b.md"}}}, batches: []time.Duration{ms(2500)},
		},
		{
			name:    "a rescan alone gives none",
			lead:    lead,
			steps:   []step{{0, event{rescan: true}}},
			batches: []time.Duration{ms(2000)},
		},
		{
			name:    "no lead, no notice",
			steps:   []step{{0, event{path: "a.md"}}},
			batches: []time.Duration{ms(2000)},
		},
		{
			name:    "a lead not shorter than the debounce gives none",
			lead:    2 * time.Second,
			steps:   []step{{0, event{path: "a.md"}}},
			batches: []time.Duration{ms(2000)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				notices, batches := recordLead(t, tt.lead, tt.steps, 6*time.Second)
				same := slices.EqualFunc(notices, tt.notices, func(x, y hintAt) bool { return x.at == y.at && slices.Equal(x.paths, y.paths) })
				if !same || !slices.Equal(batches, tt.batches) {
					t.Errorf("notices %v, batches %v; want %v, %v", notices, batches, tt.notices, tt.batches)
				}
			})
		})
	}
}

// A notice not taken is dropped once its batch is out, and the batch
// still names every path.
func TestAggregatorLeadNotTaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := make(chan event)
		out := make(chan Batch)
		soon := make(chan []string)
		go newAggregator(2*time.Second, 10*time.Second).withLead(30*time.Millisecond, soon).run(t.Context(), in, out)
		in <- event{path: "a.md"}
		time.Sleep(1980 * time.Millisecond)
		in <- event{path: "b.md"}
		b := <-out
		if !slices.Equal(b.Paths, []string{"a.md", "b.md"}) {
			t.Errorf("batch = %v, want both changes", b.Paths)
		}
		synctest.Wait()
		select {
		case paths := <-soon:
			t.Errorf("notice %v offered after its batch", paths)
		default:
		}
	})
}
