package storetest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// BindingsOpener returns a fresh identity binding store for one subtest
// and arranges, with t.Cleanup, for it to be closed.
type BindingsOpener func(t *testing.T) store.IdentityBindings

// RunIdentityBindings runs every IdentityBindings conformance test, each
// on a fresh store.
func RunIdentityBindings(t *testing.T, open BindingsOpener) {
	runEach(t, open, []subtest[store.IdentityBindings]{
		{"BindFree", testBindFree},
		{"BoundKeeps", testBoundKeeps},
		{"Unbind", testUnbind},
		{"List", testListBindings},
		{"ExactSubject", testBindingExactSubject},
		{"Concurrent", testBindConcurrent},
		{"Empty", testBindEmpty},
	})
}

func binding(subject, id string, n int) store.IdentityBinding {
	return store.IdentityBinding{Subject: subject, AccountID: id, BoundAt: at(n)}
}

func sameBinding(a, b store.IdentityBinding) bool {
	return a.Subject == b.Subject && a.AccountID == b.AccountID && a.BoundAt.Equal(b.BoundAt)
}

// bind binds b and fails the test on an error.
func bind(t *testing.T, s store.IdentityBindings, b store.IdentityBinding) store.IdentityBinding {
	t.Helper()
	got, err := s.BindIdentity(context.Background(), b)
	if err != nil {
		t.Fatalf("BindIdentity(%s, %s) error = %v", b.Subject, b.AccountID, err)
	}
	return got
}

// wantBinding checks that subject is bound as want.
func wantBinding(t *testing.T, s store.IdentityBindings, want store.IdentityBinding) {
	t.Helper()
	got, err := s.IdentityBinding(context.Background(), want.Subject)
	if err != nil || !sameBinding(got, want) {
		t.Errorf("IdentityBinding(%s) = %+v, %v, want %+v", want.Subject, got, err, want)
	}
}

func testBindFree(t *testing.T, s store.IdentityBindings) {
	want := binding("github:alice", "1", 1)
	if got := bind(t, s, want); !sameBinding(got, want) {
		t.Errorf("BindIdentity(free subject) = %+v, want %+v", got, want)
	}
	wantBinding(t, s, want)
	if _, err := s.IdentityBinding(context.Background(), "github:bob"); !errors.Is(err, store.ErrBindingNotFound) {
		t.Errorf("IdentityBinding(unbound) error = %v, want ErrBindingNotFound", err)
	}
}

func testBoundKeeps(t *testing.T, s store.IdentityBindings) {
	first := binding("github:alice", "1", 1)
	bind(t, s, first)
	for _, b := range []store.IdentityBinding{binding("github:alice", "2", 2), binding("github:alice", "1", 3)} {
		if got := bind(t, s, b); !sameBinding(got, first) {
			t.Errorf("BindIdentity(%s to %s) = %+v, want the first binding %+v", b.Subject, b.AccountID, got, first)
		}
	}
	wantBinding(t, s, first)
}

func testUnbind(t *testing.T, s store.IdentityBindings) {
	ctx := context.Background()
	bind(t, s, binding("github:alice", "1", 1))
	bind(t, s, binding("github:bob", "7", 1))
	if err := s.UnbindIdentity(ctx, "github:alice"); err != nil {
		t.Fatalf("UnbindIdentity() error = %v", err)
	}
	if _, err := s.IdentityBinding(ctx, "github:alice"); !errors.Is(err, store.ErrBindingNotFound) {
		t.Errorf("IdentityBinding(released) error = %v, want ErrBindingNotFound", err)
	}
	if err := s.UnbindIdentity(ctx, "github:alice"); !errors.Is(err, store.ErrBindingNotFound) {
		t.Errorf("UnbindIdentity(released) error = %v, want ErrBindingNotFound", err)
	}
	wantBinding(t, s, binding("github:bob", "7", 1))
	again := binding("github:alice", "2", 2)
	if got := bind(t, s, again); !sameBinding(got, again) {
		t.Errorf("BindIdentity(released subject) = %+v, want %+v", got, again)
	}
	wantBinding(t, s, again)
}

func testListBindings(t *testing.T, s store.IdentityBindings) {
	got, err := s.ListIdentityBindings(context.Background())
	if err != nil || len(got) != 0 {
		t.Fatalf("ListIdentityBindings(none) = %v, %v, want none", got, err)
	}
	want := []store.IdentityBinding{binding("github:Zed", "3", 3), binding("github:alice", "1", 1), binding("github:bob", "2", 2)}
	for _, i := range []int{2, 0, 1} {
		bind(t, s, want[i])
	}
	got, err = s.ListIdentityBindings(context.Background())
	if err != nil || len(got) != len(want) {
		t.Fatalf("ListIdentityBindings() = %v, %v, want %d bindings", got, err, len(want))
	}
	for i := range want {
		if !sameBinding(got[i], want[i]) {
			t.Errorf("ListIdentityBindings()[%d] = %+v, want %+v (by subject, in byte order)", i, got[i], want[i])
		}
	}
}

// testBindingExactSubject: subjects differing only in case are bound
// apart, as grants, admins and personal lanes tell them apart.
func testBindingExactSubject(t *testing.T, s store.IdentityBindings) {
	lower, upper := binding("github:alice", "1", 1), binding("github:Alice", "2", 2)
	bind(t, s, lower)
	if got := bind(t, s, upper); !sameBinding(got, upper) {
		t.Errorf("BindIdentity(%s) = %+v, want %+v", upper.Subject, got, upper)
	}
	wantBinding(t, s, lower)
}

// testBindConcurrent: of many first bindings of one subject at once, one
// wins and every caller gets it.
func testBindConcurrent(t *testing.T, s store.IdentityBindings) {
	const callers = 8
	got := make([]store.IdentityBinding, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			got[i], errs[i] = s.BindIdentity(context.Background(), binding("github:alice", strconv.Itoa(i+1), i))
		})
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("BindIdentity(caller %d) error = %v", i, errs[i])
		}
		if !sameBinding(got[i], got[0]) {
			t.Errorf("BindIdentity(caller %d) = %+v, caller 0 got %+v, want one winner for all", i, got[i], got[0])
		}
	}
	if n, err := strconv.Atoi(got[0].AccountID); err != nil || n < 1 || n > callers || !got[0].BoundAt.Equal(at(n-1)) {
		t.Errorf("winner = %+v, want one of the callers' bindings", got[0])
	}
	wantBinding(t, s, got[0])
}

func testBindEmpty(t *testing.T, s store.IdentityBindings) {
	for _, b := range []store.IdentityBinding{binding("", "1", 1), binding("github:alice", "", 1)} {
		if _, err := s.BindIdentity(context.Background(), b); err == nil {
			t.Errorf("BindIdentity(%q, %q) error = nil, want a refusal", b.Subject, b.AccountID)
		}
	}
	if got, err := s.ListIdentityBindings(context.Background()); err != nil || len(got) != 0 {
		t.Errorf("ListIdentityBindings() after refusals = %v, %v, want none", got, err)
	}
}
