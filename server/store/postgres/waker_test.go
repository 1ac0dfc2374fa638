package postgres

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// wakeTimeout bounds every wait for a wake-up in these tests.
const wakeTimeout = 30 * time.Second

// runWaker runs w until the test ends.
func runWaker(t *testing.T, w *Waker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Waker.Run() = %v, want nil after cancel", err)
		}
	})
}

// awaitWake fails the test unless ch is closed within wakeTimeout.
func awaitWake(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(wakeTimeout):
		t.Fatalf("%s: no wake-up within %s", what, wakeTimeout)
	}
}

// awaitUp waits until w listens.
func awaitUp(t *testing.T, w *Waker) {
	t.Helper()
	deadline := time.Now().Add(wakeTimeout)
	for w.Ping(context.Background()) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the waker never connected")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// notified waits until the notifications of s's writes so far are sent:
// they go out after each commit, from a goroutine of their own.
func notified(t *testing.T, s *Store) {
	t.Helper()
	deadline := time.Now().Add(wakeTimeout)
	for !s.notes.idle() {
		if time.Now().After(deadline) {
			t.Fatal("the writes' notifications were not sent within the timeout")
		}
		time.Sleep(time.Millisecond)
	}
}

func write(t *testing.T, s *Store, repo, key, value string) store.Result {
	t.Helper()
	r, err := s.Apply(context.Background(), store.Write{Repo: repo, Entries: map[string]string{key: value}, Subject: "ann", Time: time.Now()})
	if err != nil {
		t.Fatalf("Apply(%s) error = %v", repo, err)
	}
	return r
}

// TestWakerAcrossReplicas wakes a wait held by one store's waker with a
// write through another store on the same database, as between replicas.
func TestWakerAcrossReplicas(t *testing.T) {
	db := pgtest.Database(t)
	one, two := openURL(t, db), openURL(t, db)
	w := two.NewWaker(WakerOptions{CheckEvery: time.Hour})
	runWaker(t, w)
	awaitUp(t, w)
	changed, release := w.Subscribe("acme/app")
	defer release()
	other, releaseOther := w.Subscribe("acme/other")
	defer releaseOther()
	write(t, one, "acme/app", "a.md", "a")
	awaitWake(t, changed, "write through the other replica")
	if isClosed(other) {
		t.Error("a write to acme/app woke a wait on acme/other")
	}
}

// TestWakerAfterDroppedConnection terminates the listener's backend, commits
// a write while the waker cannot reconnect (its notification is lost), and
// sees the wait woken once it reconnects. /readyz's Ping fails meanwhile.
func TestWakerAfterDroppedConnection(t *testing.T) {
	db := pgtest.Database(t)
	one, two := openURL(t, db), openURL(t, db)
	write(t, one, "acme/app", "a.md", "a")
	notified(t, one) // a late notification of this write would wake the wait below
	w := two.NewWaker(WakerOptions{CheckEvery: time.Hour})
	var attempts atomic.Int32
	reconnecting := make(chan struct{})
	resume := make(chan struct{})
	w.beforeConnect = func(ctx context.Context) {
		if attempts.Add(1) != 2 {
			return
		}
		close(reconnecting)
		select {
		case <-resume:
		case <-ctx.Done():
		}
	}
	first, release := w.Subscribe("acme/app")
	runWaker(t, w)
	// The check on connecting wakes a wait it has not looked at before; the
	// wait subscribes again, as the server's does, now with a known version.
	awaitWake(t, first, "first check")
	release()
	changed, release := w.Subscribe("acme/app")
	defer release()
	awaitUp(t, w)

	pgtest.Exec(t, db, "SELECT pg_terminate_backend($1)", int32(w.pid.Load()))
	select {
	case <-reconnecting:
	case <-time.After(wakeTimeout):
		t.Fatal("the waker never tried to reconnect after its backend was terminated")
	}
	if err := w.Ping(context.Background()); err == nil {
		t.Error("Ping() = nil while the listener is disconnected, want an error")
	}
	write(t, one, "acme/app", "b.md", "b")
	if isClosed(changed) {
		t.Fatal("woken while disconnected: the test did not lose the notification")
	}
	close(resume)
	awaitWake(t, changed, "write committed while disconnected")
	awaitUp(t, w)
}

// TestWakerFallbackCheck bumps a repo's version without a notification, as
// a notification lost without a dropped connection would leave it, and
// sees the periodic check wake the wait.
func TestWakerFallbackCheck(t *testing.T) {
	db := pgtest.Database(t)
	s := openURL(t, db)
	write(t, s, "acme/app", "a.md", "a")
	w := s.NewWaker(WakerOptions{CheckEvery: 20 * time.Millisecond})
	first, release := w.Subscribe("acme/app")
	runWaker(t, w)
	awaitWake(t, first, "first check")
	release()
	changed, release := w.Subscribe("acme/app")
	defer release()
	pgtest.Exec(t, db, "UPDATE repos SET version = version + 1 WHERE slug = 'acme/app'")
	awaitWake(t, changed, "version moved without a notification")
}

// TestWakerNoSpuriousWake subscribes to a repo while the waker listens:
// the checks that follow leave the wait alone, since any change would have
// reached the waker as a notification, and a write then wakes it.
func TestWakerNoSpuriousWake(t *testing.T) {
	db := pgtest.Database(t)
	s := openURL(t, db)
	write(t, s, "acme/app", "a.md", "a")
	notified(t, s) // the write's own notification is no check's
	w := s.NewWaker(WakerOptions{CheckEvery: 10 * time.Millisecond})
	checks := make(chan struct{}, 100)
	w.afterCheck = func() {
		select {
		case checks <- struct{}{}:
		default:
		}
	}
	runWaker(t, w)
	awaitCheck := func() {
		t.Helper()
		select {
		case <-checks:
		case <-time.After(wakeTimeout):
			t.Fatal("no check within the timeout")
		}
	}
	awaitCheck()
	changed, release := w.Subscribe("acme/app")
	defer release()
	for range 3 {
		awaitCheck()
	}
	if isClosed(changed) {
		t.Fatal("a check woke a wait that began while the waker listened, with no change")
	}
	write(t, s, "acme/app", "b.md", "b")
	awaitWake(t, changed, "write after the checks")
}

// TestWakerProposalAcrossReplicas wakes a wait on a repo's proposals held
// by one replica's waker with a proposal made through another, and leaves
// the repo's change waits alone: a proposal changes no repo.
func TestWakerProposalAcrossReplicas(t *testing.T) {
	db := pgtest.Database(t)
	one, two := openURL(t, db), openURL(t, db)
	w := two.NewWaker(WakerOptions{CheckEvery: time.Hour})
	runWaker(t, w)
	awaitUp(t, w)
	proposals, release := w.Subscribe(store.ReviewWakeKey("acme/app"))
	defer release()
	repo, releaseRepo := w.Subscribe("acme/app")
	defer releaseRepo()
	_, err := one.Propose(context.Background(), store.Proposal{Repo: "acme/app", Subject: "ann", Time: time.Now(),
		Base: map[string]string{"a.md": ""}, Entries: map[string]string{"a.md": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	awaitWake(t, proposals, "proposal through the other replica")
	if isClosed(repo) {
		t.Error("a proposal woke the repo's change waits")
	}
}
