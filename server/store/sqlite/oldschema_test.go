package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
