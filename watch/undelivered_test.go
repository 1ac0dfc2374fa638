package watch

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// ask asks a running aggregator, as Undelivered does, for the paths it
// has not delivered.
func ask(asks chan<- chan<- []string) []string {
	reply := make(chan []string, 1)
	asks <- reply
	return <-reply
}

// TestAggregatorUndelivered checks that the aggregator names, when asked,
// the paths in the debounce and those of a batch not taken, and forgets
// each once its batch is taken.
func TestAggregatorUndelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := make(chan event)
		out := make(chan Batch)
		asks := make(chan chan<- []string)
		go newAggregator(time.Second, 5*time.Second).withAsk(asks).run(t.Context(), in, out)
		if got := ask(asks); len(got) != 0 {
			t.Errorf("undelivered before any change = %v, want none", got)
		}
		in <- event{path: "b.md"}
		in <- event{path: "a.md"}
		in <- event{rescan: true}
		if got, want := ask(asks), []string{"a.md", "b.md"}; !slices.Equal(got, want) {
			t.Errorf("undelivered in the debounce = %v, want %v", got, want)
		}
		time.Sleep(2 * time.Second) // the batch is ready, nobody takes it
		in <- event{path: "c.md"}
		if got, want := ask(asks), []string{"a.md", "b.md", "c.md"}; !slices.Equal(got, want) {
			t.Errorf("undelivered with a batch not taken = %v, want %v", got, want)
		}
		if got := <-out; !slices.Equal(got.Paths, []string{"a.md", "b.md"}) {
			t.Fatalf("first batch = %v, want a.md, b.md", got.Paths)
		}
		if got, want := ask(asks), []string{"c.md"}; !slices.Equal(got, want) {
			t.Errorf("undelivered once the batch is taken = %v, want %v", got, want)
		}
		if got := <-out; !slices.Equal(got.Paths, []string{"c.md"}) {
			t.Fatalf("second batch = %v, want c.md", got.Paths)
		}
		if got := ask(asks); len(got) != 0 {
			t.Errorf("undelivered once every batch is taken = %v, want none", got)
		}
	})
}

// TestWatcherUndelivered checks Undelivered on a real watcher: nothing
// before Run, a file saved while its debounce runs, and nothing, without
// waiting, once Run has returned.
func TestWatcherUndelivered(t *testing.T) {
	dir := t.TempDir()
	w, err := New(dir, Options{Debounce: time.Hour, MaxWait: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Undelivered(); got != nil {
		t.Errorf("Undelivered() before Run = %v, want nil", got)
	}
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- w.Run(ctx) }()
	<-w.Attached()
	writeFile(t, filepath.Join(dir, "note.md"), "saved\n")
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(w.Undelivered(), []string{"note.md"}) {
		if time.Now().After(deadline) {
			t.Fatalf("Undelivered() = %v after 10s, want [note.md]", w.Undelivered())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("Run() = %v, want nil", err)
	}
	if got := w.Undelivered(); got != nil {
		t.Errorf("Undelivered() after Run = %v, want nil", got)
	}
	if got := w.Unbatched().Paths; !slices.Equal(got, []string{"note.md"}) {
		t.Errorf("Unbatched() = %v, want [note.md]", got)
	}
}
