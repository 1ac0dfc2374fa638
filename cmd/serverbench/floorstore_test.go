package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// TestSQLiteFloorKeepsEveryPut writes from many goroutines at once, so
// commits take several PUTs, and wants every body in the file after it
// is closed.
func TestSQLiteFloorKeepsEveryPut(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "floor.db")
	w, err := openFloorWriter(ctx, storeFloorSQLite+path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() { errs <- w.write(ctx, fmt.Sprintf("r%d", i%7), fmt.Appendf(nil, "body %d", i)) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("write = %v", err)
		}
	}
	if err := w.close(); err != nil {
		t.Fatalf("close = %v", err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows, bodies int
	if err := db.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT body) FROM puts`).Scan(&rows, &bodies); err != nil {
		t.Fatal(err)
	}
	if rows != n || bodies != n {
		t.Errorf("the file holds %d rows, %d distinct bodies, want %d of each", rows, bodies, n)
	}
}

func TestOpenFloorWriterRefusesUnknownStore(t *testing.T) {
	if w, err := openFloorWriter(context.Background(), "mysql:x"); err == nil {
		t.Errorf("openFloorWriter(mysql:x) = %v, nil; want an error", w)
	}
}
