package postgres

import (
	"context"
	"testing"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
	"github.com/teammemd/teammemd/server/store/storetest"
)

// openTemp opens a store on a fresh schema and closes it when the test
// ends.
func openTemp(t *testing.T) *Store {
	t.Helper()
	return openURL(t, pgtest.Schema(t))
}

// openURL opens a store on dbURL and closes it when the test ends.
func openURL(t *testing.T, dbURL string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dbURL, Options{})
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

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTemp(t) })
}

func TestTokensConformance(t *testing.T) {
	storetest.RunTokens(t, func(t *testing.T) store.Tokens { return openTemp(t) })
}

func TestWebSessionsConformance(t *testing.T) {
	storetest.RunWebSessions(t, func(t *testing.T) store.WebSessions { return openTemp(t) })
}

func TestProposalsConformance(t *testing.T) {
	storetest.RunProposals(t, func(t *testing.T) store.Proposals { return openTemp(t) })
}

func TestPersonalConformance(t *testing.T) {
	storetest.RunPersonal(t, func(t *testing.T) storetest.PersonalStore { return openTemp(t) })
}
