package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/storetest"
)

// openFromBefore opens a database made at the schema version just before
// migration step, holding rows (SQL run after the schema), so that Open
// migrates it. The store is closed when the test ends.
func openFromBefore(t *testing.T, step, rows string) *Store {
	return openFromBeforeWith(t, step, rows, Options{})
}

// openFromBeforeWith is openFromBefore with opts.
func openFromBeforeWith(t *testing.T, step, rows string, opts Options) *Store {
	t.Helper()
	before := slices.Index(migrations, step)
	if before < 0 {
		t.Fatal("no such migration step")
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	rawExec(t, path, strings.Join(migrations[:before], ";\n")+fmt.Sprintf(`;
		PRAGMA user_version = %d; PRAGMA application_id = %d;
		%s`, before, applicationID, rows))
	s, err := Open(context.Background(), path, opts)
	return storetest.CloseAtEnd(t, s, err)
}

// TestKeepSchema: with KeepSchema, Open leaves an older schema as it is,
// with store.ErrOlderSchema, and still creates a new database.
func TestKeepSchema(t *testing.T) {
	before := len(migrations) - 1
	path := filepath.Join(t.TempDir(), FileName)
	rawExec(t, path, strings.Join(migrations[:before], ";\n")+fmt.Sprintf(`;
		PRAGMA user_version = %d; PRAGMA application_id = %d;`, before, applicationID))
	s, err := Open(context.Background(), path, Options{KeepSchema: true})
	if err == nil {
		s.Close()
	}
	if !errors.Is(err, store.ErrOlderSchema) {
		t.Errorf("Open(older schema, KeepSchema) error = %v, want store.ErrOlderSchema", err)
	}
	s, err = Open(context.Background(), path, Options{})
	storetest.CloseAtEnd(t, s, err) // still at the older schema, so it migrates
	s, err = Open(context.Background(), filepath.Join(t.TempDir(), FileName), Options{KeepSchema: true})
	storetest.CloseAtEnd(t, s, err)
}
