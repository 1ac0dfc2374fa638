package postgres

import (
	"context"
	"testing"

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
	return storetest.CloseAtEnd(t, s, err)
}

func TestConformance(t *testing.T) {
	storetest.RunBackend(t, openTemp)
}

func TestPersonalConformance(t *testing.T) {
	storetest.RunPersonal(t, func(t *testing.T) storetest.PersonalStore { return openTemp(t) })
}
