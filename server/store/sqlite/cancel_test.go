package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync"
	"testing"

	"modernc.org/sqlite"

	"github.com/teammemd/teammemd/server/store"
)

// testCancels holds the cancel funcs the SQL function test_cancel(name)
// calls, so a trigger can cancel a caller's context mid-write.
var testCancels sync.Map

func init() {
	sqlite.MustRegisterScalarFunction("test_cancel", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		if cancel, ok := testCancels.Load(fmt.Sprint(args[0])); ok {
			cancel.(context.CancelFunc)()
		}
		return nil, nil
	})
}

// TestCancelAfterWriteBegan cancels the caller's context while the writer
// writes its entry: the write commits, and Apply reports it as committed.
func TestCancelAfterWriteBegan(t *testing.T) {
	s := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	testCancels.Store(t.Name(), cancel)
	defer testCancels.Delete(t.Name())
	trigger := fmt.Sprintf(`CREATE TEMP TRIGGER cancel_caller BEFORE INSERT ON revisions
		WHEN NEW.key = 'late.md' BEGIN SELECT test_cancel('%s'); END`, t.Name())
	if _, err := s.wdb.ExecContext(context.Background(), trigger); err != nil {
		t.Fatal(err)
	}
	res, err := s.Apply(ctx, store.Write{Repo: "acme/app", Entries: map[string]string{"late.md": "L"}, Time: t0})
	if err != nil || res.Version != 1 {
		t.Fatalf("Apply(canceled mid-write) = v%d, %v, want v1, nil", res.Version, err)
	}
	if ctx.Err() == nil {
		t.Fatal("trigger did not cancel the caller's context")
	}
	snap, err := s.Snapshot(context.Background(), "acme/app", true)
	if err != nil || snap.Checksum != res.Checksum || snap.Entries["late.md"] != "L" {
		t.Errorf("Snapshot() = %s %v, %v, want %s with late.md", snap.Checksum, snap.Entries, err, res.Checksum)
	}
}

// TestCancelBeforeTurn cancels a caller whose write waits in a batch
// behind another: its write is skipped and reported as canceled.
func TestCancelBeforeTurn(t *testing.T) {
	s := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()
	first, second := newWriteReq(bg), newWriteReq(ctx)
	first.w = store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "A"}, Time: t0}
	second.w = store.Write{Repo: "acme/app", Entries: map[string]string{"b.md": "B"}, Time: t0}
	s.commitBatch([]*writeReq{first, second})
	<-first.done
	<-second.done
	if first.res.err != nil {
		t.Errorf("commitBatch() first error = %v", first.res.err)
	}
	if second.res.err != context.Canceled {
		t.Errorf("commitBatch() canceled error = %v, want context.Canceled", second.res.err)
	}
	snap, err := s.Snapshot(bg, "acme/app", true)
	if err != nil || len(snap.Entries) != 1 || snap.Entries["a.md"] != "A" {
		t.Errorf("Snapshot() = %v, %v, want only a.md", snap.Entries, err)
	}
}
