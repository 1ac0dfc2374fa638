package storetest

import (
	"io"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// Backend is a store backend with every part the server keeps in it.
type Backend interface {
	store.Store
	store.Tokens
	store.WebSessions
	store.Proposals
	store.IdentityBindings
}

// RunBackend runs every conformance test a backend passes, those of the
// Store and of its tokens, web sessions, proposals and identity bindings,
// each on a fresh backend from open, which arranges for it to be closed.
func RunBackend[B Backend](t *testing.T, open func(t *testing.T) B) {
	t.Run("Store", func(t *testing.T) { Run(t, func(t *testing.T) store.Store { return open(t) }) })
	t.Run("Tokens", func(t *testing.T) { RunTokens(t, func(t *testing.T) store.Tokens { return open(t) }) })
	t.Run("WebSessions", func(t *testing.T) { RunWebSessions(t, func(t *testing.T) store.WebSessions { return open(t) }) })
	t.Run("Proposals", func(t *testing.T) { RunProposals(t, func(t *testing.T) store.Proposals { return open(t) }) })
	t.Run("IdentityBindings", func(t *testing.T) {
		RunIdentityBindings(t, func(t *testing.T) store.IdentityBindings { return open(t) })
	})
	t.Run("Approvals", func(t *testing.T) { RunApprovals(t, func(t *testing.T) Approver { return open(t) }) })
}

// CloseAtEnd returns s, which its Open returned with err, and closes it
// when the test ends; an err fails the test at once.
func CloseAtEnd[S io.Closer](t *testing.T, s S, err error) S {
	t.Helper()
	if err != nil {
		t.Fatalf("Open() error = %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close() error = %v", err)
		}
	})
	return s
}
