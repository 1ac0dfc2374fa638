package postgres

import (
	"context"
	"errors"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// queued returns how many writes to repo wait behind its batch.
func (s *Store) queued(repo string) int {
	s.commit.mu.Lock()
	defer s.commit.mu.Unlock()
	if q := s.commit.queues[repo]; q != nil {
		return len(q.waiting)
	}
	return 0
}

type outcome struct {
	r   store.Result
	err error
}

// batchProbe starts writes to one repo of a store.
type batchProbe struct {
	t    *testing.T
	s    *Store
	repo string
}

// apply starts w; its outcome arrives on the channel.
func (b *batchProbe) apply(ctx context.Context, w store.Write) <-chan outcome {
	out := make(chan outcome, 1)
	w.Repo, w.Subject, w.Time = b.repo, "ann", time.Now()
	go func() {
		r, err := b.s.Apply(ctx, w)
		out <- outcome{r, err}
	}()
	return out
}

// queue starts w and returns once it waits behind the batch in progress.
func (b *batchProbe) queue(ctx context.Context, w store.Write) <-chan outcome {
	n := b.s.queued(b.repo)
	out := b.apply(ctx, w)
	for deadline := time.Now().Add(wakeTimeout); b.s.queued(b.repo) == n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			b.t.Fatal("the write never queued")
		}
	}
	return out
}

// TestBatchWritesFailAlone holds a leader before it takes its batch, queues
// writes behind it (one refused, one stale, one whose caller gives up), and
// checks each gets its own outcome from the one transaction.
func TestBatchWritesFailAlone(t *testing.T) {
	s := openTemp(t)
	const repo = "acme/app"
	first := write(t, s, repo, "start.md", "0")
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s.commit.beforeBatch = func(string) {
		once.Do(func() {
			close(held)
			<-release
		})
	}
	b := &batchProbe{t: t, s: s, repo: repo}
	apply, queue := b.apply, b.queue
	leader := apply(context.Background(), store.Write{Entries: map[string]string{"a.md": "A"}})
	<-held
	refused := queue(context.Background(), store.Write{Entries: map[string]string{"b.md": "B"}, Deletes: []string{"b.md"}})
	good := queue(context.Background(), store.Write{Entries: map[string]string{"c.md": "C"}})
	stale := queue(context.Background(), store.Write{IfMatch: first.Checksum, Entries: map[string]string{"d.md": "D"}})
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := queue(ctx, store.Write{Entries: map[string]string{"e.md": "E"}})
	cancel()
	if o := <-gaveUp; !errors.Is(o.err, context.Canceled) {
		t.Errorf("Apply(canceled while queued) error = %v, want context.Canceled", o.err)
	}
	close(release)

	if o := <-leader; o.err != nil || o.r.Version != 2 {
		t.Errorf("Apply(leader) = v%d, %v, want v2", o.r.Version, o.err)
	}
	if o := <-refused; o.err == nil || !strings.Contains(o.err.Error(), "both written and deleted") {
		t.Errorf("Apply(write and delete b.md) error = %v, want both written and deleted", o.err)
	}
	if o := <-good; o.err != nil || o.r.Version != 3 {
		t.Errorf("Apply(after a refused write) = v%d, %v, want v3", o.r.Version, o.err)
	}
	if o := <-stale; !errors.Is(o.err, store.ErrPrecondition) {
		t.Errorf("Apply(stale If-Match in the batch) error = %v, want ErrPrecondition", o.err)
	}
	snap, err := s.Snapshot(context.Background(), repo, true)
	want := map[string]string{"start.md": "0", "a.md": "A", "c.md": "C"}
	if err != nil || snap.Version != 3 || !maps.Equal(snap.Entries, want) {
		t.Errorf("Snapshot() = v%d %v, %v, want v3 %v", snap.Version, snap.Entries, err, want)
	}
}
