package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// heldWaiter records which kind of change wait the live loop holds.
type heldWaiter struct {
	whole []string             // Wait's If-None-Match
	since []api.HashesResponse // WaitChanges' held
}

func (w *heldWaiter) Wait(_ context.Context, _, inm string, _ time.Duration) (api.HashesResponse, bool, error) {
	w.whole = append(w.whole, inm)
	return api.HashesResponse{}, false, nil
}

func (w *heldWaiter) WaitChanges(_ context.Context, _ string, held api.HashesResponse, _ time.Duration, _ memsync.HeldAt) (api.HashesResponse, bool, error) {
	w.since = append(w.since, held)
	return api.HashesResponse{}, false, nil
}

func TestWaitAsksForTheChangesSinceWhatItHolds(t *testing.T) {
	opts := &Options{}
	opts.setDefaults()
	w := &heldWaiter{}
	r := newRepo(Spec{Repo: slug, Dir: t.TempDir()}, &scriptEngine{}, w, nil, opts)
	at := api.HashesResponse{Checksum: "sha256:x", EntryChecksums: map[string]string{"a.md": api.EntryChecksum("a")}, DeletedEntries: map[string]int64{}}
	ctx := t.Context()
	if _, _, _, err := r.wait(ctx, "sha256:x", at); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := r.wait(ctx, "sha256:y", at); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := r.wait(ctx, "sha256:x", api.HashesResponse{}); err != nil {
		t.Fatal(err)
	}
	if len(w.since) != 1 || w.since[0].Checksum != "sha256:x" || len(w.whole) != 2 || w.whole[0] != "sha256:y" || w.whole[1] != "sha256:x" {
		t.Errorf("waits: with changes %+v, whole %v; want the changes since what it holds only when held at the checksum", w.since, w.whole)
	}
}
