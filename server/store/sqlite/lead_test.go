package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"modernc.org/sqlite"

	"github.com/teammemd/teammemd/server/store"
)

// testGates holds the gates the SQL function test_gate(name) stops at, so
// a trigger can hold a commit open while a test queues writes behind it.
var testGates sync.Map

type gate struct {
	entered chan struct{} // closed when the commit reaches the gate
	release chan struct{} // closed by the test to let it go on
}

func init() {
	sqlite.MustRegisterScalarFunction("test_gate", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		if g, ok := testGates.Load(fmt.Sprint(args[0])); ok {
			close(g.(*gate).entered)
			<-g.(*gate).release
		}
		return nil, nil
	})
}

// holdCommit starts a write of held.md in a goroutine and returns once its
// commit is under way and stopped; release lets it finish, and wait
// returns its error.
func holdCommit(t *testing.T, s *Store) (release func(), wait func() error) {
	t.Helper()
	g := &gate{entered: make(chan struct{}), release: make(chan struct{})}
	testGates.Store(t.Name(), g)
	t.Cleanup(func() { testGates.Delete(t.Name()) })
	trigger := fmt.Sprintf(`CREATE TEMP TRIGGER gate BEFORE INSERT ON revisions
		WHEN NEW.key = 'held.md' BEGIN SELECT test_gate('%s'); END`, t.Name())
	if _, err := s.wdb.ExecContext(context.Background(), trigger); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Apply(context.Background(), store.Write{Repo: "acme/app", Entries: map[string]string{"held.md": "H"}, Time: t0})
		done <- err
	}()
	<-g.entered
	var once sync.Once
	release = func() { once.Do(func() { close(g.release) }) }
	t.Cleanup(release)
	return release, func() error { return <-done }
}

// queued waits until n requests wait behind the commit under way.
func queued(s *Store, n int) {
	for {
		s.writers.mu.Lock()
		got := len(s.writers.pending)
		s.writers.mu.Unlock()
		if got >= n {
			return
		}
		runtime.Gosched()
	}
}

// A write whose ctx is done while it waits behind a commit fails with
// ctx's error and writes nothing; the writes behind it commit.
func TestCancelWhileQueued(t *testing.T) {
	s := openTemp(t)
	release, wait := holdCommit(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	canceled := make(chan error, 1)
	go func() {
		_, err := s.Apply(ctx, store.Write{Repo: "acme/app", Entries: map[string]string{"gone.md": "G"}, Time: t0})
		canceled <- err
	}()
	queued(s, 1)
	later := make(chan error, 1)
	go func() {
		_, err := s.Apply(context.Background(), store.Write{Repo: "acme/app", Entries: map[string]string{"later.md": "L"}, Time: t0})
		later <- err
	}()
	queued(s, 2)
	cancel()
	if err := <-canceled; !errors.Is(err, context.Canceled) {
		t.Errorf("Apply(canceled while queued) error = %v, want context.Canceled", err)
	}
	release()
	if err := wait(); err != nil {
		t.Errorf("Apply(held.md) error = %v", err)
	}
	if err := <-later; err != nil {
		t.Errorf("Apply(later.md) error = %v", err)
	}
	snap, err := s.Snapshot(context.Background(), "acme/app", true)
	if _, gone := snap.Entries["gone.md"]; err != nil || gone || snap.Entries["later.md"] != "L" || snap.Entries["held.md"] != "H" {
		t.Errorf("Snapshot() = %v, %v, want held.md and later.md only", snap.Entries, err)
	}
}

// A write handed the lead that withdraws hands it on to the next.
func TestWithdrawHandsLeadOn(t *testing.T) {
	s := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	first, second := newWriteReq(ctx), newWriteReq(context.Background())
	q := &s.writers
	q.mu.Lock()
	q.leading = true
	q.pending = []*writeReq{first, second}
	q.handOn()
	q.mu.Unlock()
	cancel()
	if !s.withdraw(first) {
		t.Fatal("withdraw(queued write) = false, want true")
	}
	select {
	case <-second.lead:
	default:
		t.Fatal("withdraw of the write handed the lead did not hand it to the next")
	}
	if !s.withdraw(second) {
		t.Fatal("withdraw(second) = false, want true")
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.leading || q.next != nil || len(q.pending) != 0 {
		t.Errorf("after every write withdrew: leading %v, next %v, %d pending; want none", q.leading, q.next, len(q.pending))
	}
}

// Close lets the commit under way finish and fails the writes waiting
// behind it with ErrClosed; a write after Close fails at once.
func TestCloseFailsQueuedWrites(t *testing.T) {
	s := openTemp(t)
	release, wait := holdCommit(t, s)
	queuedErr := make(chan error, 1)
	go func() {
		_, err := s.Apply(context.Background(), store.Write{Repo: "acme/app", Entries: map[string]string{"q.md": "Q"}, Time: t0})
		queuedErr <- err
	}()
	queued(s, 1)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	if err := <-queuedErr; !errors.Is(err, ErrClosed) {
		t.Errorf("Apply(queued at Close) error = %v, want ErrClosed", err)
	}
	release()
	if err := wait(); err != nil {
		t.Errorf("Apply(under way at Close) error = %v, want nil", err)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close() = %v", err)
	}
	if _, err := s.Apply(context.Background(), store.Write{Repo: "acme/app", Entries: map[string]string{"x.md": "X"}, Time: t0}); !errors.Is(err, ErrClosed) {
		t.Errorf("Apply(after Close) error = %v, want ErrClosed", err)
	}
}
