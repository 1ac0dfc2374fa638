package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/teammemd/teammemd/server/store/storetest"
)

// openTemp opens a fresh store on a file in a temporary directory and
// closes it when the test ends.
func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "data", FileName), Options{})
	return storetest.CloseAtEnd(t, s, err)
}

func TestConformance(t *testing.T) {
	storetest.RunBackend(t, openTemp)
}

func TestPersonalConformance(t *testing.T) {
	storetest.RunPersonal(t, func(t *testing.T) storetest.PersonalStore { return openTemp(t) })
}
