package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// PersonalStore is a store that keeps personal lanes.
type PersonalStore interface {
	store.Store
	store.Personal
}

// PersonalOpener returns a fresh, empty PersonalStore for one subtest and
// arranges, with t.Cleanup, for it to be closed.
type PersonalOpener func(t *testing.T) PersonalStore

// RunPersonal runs every personal lane conformance test, each on a fresh
// store.
func RunPersonal(t *testing.T, open PersonalOpener) {
	runEach(t, open, []subtest[PersonalStore]{
		{"KeyPreconditions", testKeyPreconditions},
		{"LaneWriteChecksKey", testLaneWriteChecksKey},
		{"LaneUsage", testLaneUsage},
		{"QuotaEntries", testQuotaEntries},
		{"QuotaBytes", testQuotaBytes},
		{"QuotaConcurrentLanes", testQuotaConcurrentLanes},
		{"DropLane", testDropLane},
		{"LanesHiddenFromListings", testLanesHiddenFromListings},
		{"PurgePersonal", testPurgePersonal},
		{"LaneWriteOfOtherSubject", testLaneWriteOfOtherSubject},
	})
}

// Keys and lanes of the personal tests: well-formed IDs.
const (
	keyA  = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	keyB  = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	lane1 = "11111111111111111111111111111111"
	lane2 = "22222222222222222222222222222222"
)

func putKey(t *testing.T, s PersonalStore, subject, keyID, ifMatch string) {
	t.Helper()
	k := store.PersonalKey{Subject: subject, KeyID: keyID, Envelope: "envelope of " + keyID, UpdatedAt: at(0)}
	if _, err := s.PutPersonalKey(context.Background(), k, ifMatch); err != nil {
		t.Fatalf("PutPersonalKey(%s, %s, if %q) error = %v", subject, keyID, ifMatch, err)
	}
}

// laneWrite is a write of entries to lane of subject with keyID.
func laneWrite(subject, lane, keyID string, q store.Quota, entries map[string]string, deletes ...string) store.Write {
	return store.Write{Repo: store.PersonalRepo(subject, lane), Subject: subject, Entries: entries, Deletes: deletes,
		Time: at(1), Lane: &store.LaneWrite{KeyID: keyID, Quota: q}}
}

func lanes(t *testing.T, s PersonalStore, subject string) []store.Lane {
	t.Helper()
	ls, err := s.Lanes(context.Background(), subject)
	if err != nil {
		t.Fatalf("Lanes(%s) error = %v", subject, err)
	}
	return ls
}

func testKeyPreconditions(t *testing.T, s PersonalStore) {
	ctx := context.Background()
	if _, err := s.PersonalKey(ctx, "ann"); !errors.Is(err, store.ErrNoPersonalKey) {
		t.Fatalf("PersonalKey(ann) before any = %v, want ErrNoPersonalKey", err)
	}
	if _, err := s.PutPersonalKey(ctx, store.PersonalKey{Subject: "ann", KeyID: keyA, Envelope: "e"}, keyA); !errors.Is(err, store.ErrPrecondition) {
		t.Errorf("PutPersonalKey(if %s) with none = %v, want ErrPrecondition", keyA, err)
	}
	putKey(t, s, "ann", keyA, "")
	for _, ifMatch := range []string{"", keyB} {
		if _, err := s.PutPersonalKey(ctx, store.PersonalKey{Subject: "ann", KeyID: keyB, Envelope: "e"}, ifMatch); !errors.Is(err, store.ErrPrecondition) {
			t.Errorf("PutPersonalKey(if %q) over %s = %v, want ErrPrecondition", ifMatch, keyA, err)
		}
	}
	putKey(t, s, "ann", keyB, keyA)
	got, err := s.PersonalKey(ctx, "ann")
	if err != nil || got.KeyID != keyB || got.Envelope != "envelope of "+keyB || !got.UpdatedAt.Equal(at(0)) {
		t.Errorf("PersonalKey(ann) = %+v, %v, want %s with its envelope at %v", got, err, keyB, at(0))
	}
	if _, err := s.PersonalKey(ctx, "bob"); !errors.Is(err, store.ErrNoPersonalKey) {
		t.Errorf("PersonalKey(bob) = %v, want ErrNoPersonalKey", err)
	}
}

func testLaneWriteChecksKey(t *testing.T, s PersonalStore) {
	ctx := context.Background()
	w := laneWrite("ann", lane1, keyA, store.Quota{}, map[string]string{"k.age": "v"})
	if _, err := s.Apply(ctx, w); !errors.Is(err, store.ErrNoPersonalKey) {
		t.Errorf("Apply(lane) without a key = %v, want ErrNoPersonalKey", err)
	}
	putKey(t, s, "ann", keyB, "")
	if _, err := s.Apply(ctx, w); !errors.Is(err, store.ErrPersonalKeyChanged) {
		t.Errorf("Apply(lane, %s) with key %s = %v, want ErrPersonalKeyChanged", keyA, keyB, err)
	}
	if _, err := s.Snapshot(ctx, w.Repo, false); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Snapshot(lane) after refused writes = %v, want ErrNotFound", err)
	}
	w.Lane.KeyID = keyB
	apply(t, s, w)
	if got := lanes(t, s, "ann"); len(got) != 1 || got[0].Lane != lane1 || got[0].KeyID != keyB {
		t.Errorf("Lanes(ann) = %+v, want lane %s with key %s", got, lane1, keyB)
	}
}

func testLaneUsage(t *testing.T, s PersonalStore) {
	putKey(t, s, "ann", keyA, "")
	q := store.Quota{}
	apply(t, s, laneWrite("ann", lane1, keyA, q, map[string]string{"a": "12345", "b": "123"}))
	apply(t, s, laneWrite("ann", lane1, keyA, q, map[string]string{"a": "1"}, "b"))
	apply(t, s, laneWrite("ann", lane1, keyA, q, map[string]string{"a": "1"}, "b")) // no change
	apply(t, s, laneWrite("ann", lane2, keyA, q, map[string]string{"c": "1234567890"}))
	apply(t, s, laneWrite("ann", lane2, keyA, q, map[string]string{"b": "xy"}))
	want := []store.Lane{
		{Lane: lane1, KeyID: keyA, Usage: store.Usage{Entries: 1, Bytes: 1}, Version: 2},
		{Lane: lane2, KeyID: keyA, Usage: store.Usage{Entries: 2, Bytes: 12}, Version: 2},
	}
	got := lanes(t, s, "ann")
	for i := range got {
		got[i].LastModified = want[i].LastModified
	}
	if !slices.Equal(got, want) {
		t.Errorf("Lanes(ann) = %+v, want %+v", got, want)
	}
	subjects, err := s.PersonalSubjects(context.Background())
	if err != nil || len(subjects) != 1 || subjects[0].Subject != "ann" || subjects[0].Lanes != 2 ||
		subjects[0].Usage != (store.Usage{Entries: 3, Bytes: 13}) || subjects[0].KeyID != keyA || !subjects[0].LastModified.Equal(at(1)) {
		t.Errorf("PersonalSubjects() = %+v, %v, want ann: 2 lanes, 3 entries, 13 bytes at %v", subjects, err, at(1))
	}
}

func testQuotaEntries(t *testing.T, s PersonalStore) {
	putKey(t, s, "ann", keyA, "")
	q := store.Quota{MaxEntries: 3}
	apply(t, s, laneWrite("ann", lane1, keyA, q, map[string]string{"a": "1", "b": "2"}))
	_, err := s.Apply(context.Background(), laneWrite("ann", lane2, keyA, q, map[string]string{"c": "3", "d": "4"}))
	var qe *store.QuotaError
	if !errors.As(err, &qe) || qe.Entries != 4 {
		t.Fatalf("Apply(2 more entries over a quota of 3) = %v, want a QuotaError for 4 entries", err)
	}
	if _, err := s.Snapshot(context.Background(), store.PersonalRepo("ann", lane2), false); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Snapshot(refused lane) = %v, want ErrNotFound", err)
	}
	apply(t, s, laneWrite("ann", lane2, keyA, q, map[string]string{"c": "3"}))
	apply(t, s, laneWrite("ann", lane1, keyA, q, map[string]string{"a": "changed"})) // at the quota, no new entry
	apply(t, s, laneWrite("ann", lane1, keyA, store.Quota{MaxEntries: 1}, nil, "b")) // over a lowered quota, shrinking
	apply(t, s, laneWrite("ann", lane2, keyA, q, map[string]string{"d": "4"}))
}

func testQuotaBytes(t *testing.T, s PersonalStore) {
	putKey(t, s, "ann", keyA, "")
	q := store.Quota{MaxBytes: 10}
	apply(t, s, laneWrite("ann", lane1, keyA, q, map[string]string{"a": "123456"}))
	_, err := s.Apply(context.Background(), laneWrite("ann", lane2, keyA, q, map[string]string{"b": "12345"}))
	var qe *store.QuotaError
	if !errors.As(err, &qe) || qe.Bytes != 11 {
		t.Fatalf("Apply(11 bytes over a quota of 10) = %v, want a QuotaError for 11 bytes", err)
	}
	apply(t, s, laneWrite("ann", lane1, keyA, q, map[string]string{"a": "12"}))
	apply(t, s, laneWrite("ann", lane2, keyA, q, map[string]string{"b": "12345678"}))
	if got := lanes(t, s, "ann"); len(got) != 2 || got[0].Bytes+got[1].Bytes != 10 {
		t.Errorf("Lanes(ann) = %+v, want 10 bytes in all", got)
	}
}

// testQuotaConcurrentLanes writes one entry to each of many lanes at once
// under a quota of a few: exactly that many writes succeed.
func testQuotaConcurrentLanes(t *testing.T, s PersonalStore) {
	putKey(t, s, "ann", keyA, "")
	const writers, quota = 12, 5
	q := store.Quota{MaxEntries: quota}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			lane := fmt.Sprintf("%032x", i+1)
			_, errs[i] = s.Apply(context.Background(), laneWrite("ann", lane, keyA, q, map[string]string{"k": "v"}))
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		var qe *store.QuotaError
		switch {
		case err == nil:
			ok++
		case !errors.As(err, &qe):
			t.Errorf("concurrent lane write error = %v, want nil or a QuotaError", err)
		}
	}
	if ok != quota {
		t.Errorf("concurrent lane writes that succeeded = %d, want %d", ok, quota)
	}
	if got := lanes(t, s, "ann"); len(got) != quota {
		t.Errorf("Lanes(ann) = %d lanes, want %d", len(got), quota)
	}
}

func testDropLane(t *testing.T, s PersonalStore) {
	ctx := context.Background()
	putKey(t, s, "ann", keyA, "")
	q := store.Quota{MaxEntries: 2}
	apply(t, s, laneWrite("ann", lane1, keyA, q, map[string]string{"a": "1", "b": "2"}))
	apply(t, s, laneWrite("ann", lane1, keyA, q, nil, "b"))
	apply(t, s, laneWrite("ann", lane2, keyA, q, map[string]string{"c": "3"}))
	if err := s.DropLane(ctx, "bob", lane1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DropLane(bob, ann's lane) = %v, want ErrNotFound", err)
	}
	if err := s.DropLane(ctx, "ann", lane1); err != nil {
		t.Fatalf("DropLane(ann, %s) error = %v", lane1, err)
	}
	repo := store.PersonalRepo("ann", lane1)
	if _, err := s.Snapshot(ctx, repo, true); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Snapshot(dropped lane) = %v, want ErrNotFound", err)
	}
	if err := s.History(ctx, store.HistoryQuery{Repo: repo}, func(store.Revision) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("History(dropped lane) = %v, want ErrNotFound", err)
	}
	if err := s.DropLane(ctx, "ann", lane1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DropLane(dropped lane) = %v, want ErrNotFound", err)
	}
	if got := lanes(t, s, "ann"); len(got) != 1 || got[0].Lane != lane2 {
		t.Errorf("Lanes(ann) after the drop = %+v, want %s only", got, lane2)
	}
	// The dropped lane's entries no longer count, and the lane starts anew.
	r := apply(t, s, laneWrite("ann", lane1, keyA, q, map[string]string{"d": "4"}))
	if r.Version != 1 {
		t.Errorf("Apply(dropped lane again).Version = %d, want 1", r.Version)
	}
	if snap := snapshot(t, s, repo); len(snap.Entries) != 1 || len(snap.Deleted) != 0 {
		t.Errorf("Snapshot(lane written again) = %v entries, %v deleted, want d only", snap.Entries, snap.Deleted)
	}
}

func testLanesHiddenFromListings(t *testing.T, s PersonalStore) {
	ctx := context.Background()
	putKey(t, s, "ann", keyA, "")
	apply(t, s, laneWrite("ann", lane1, keyA, store.Quota{}, map[string]string{"a": "1"}))
	apply(t, s, store.Write{Repo: "acme/app", Entries: map[string]string{"b": "2"}})
	var repos []string
	err := s.History(ctx, store.HistoryQuery{}, func(r store.Revision) error {
		repos = append(repos, r.Repo)
		return nil
	})
	if err != nil || !slices.Equal(repos, []string{"acme/app"}) {
		t.Errorf("History(every repo) repos = %v, %v, want acme/app only", repos, err)
	}
	if ex, ok := s.(interface {
		Repos(context.Context) ([]string, error)
	}); ok {
		got, err := ex.Repos(ctx)
		if err != nil || !slices.Equal(got, []string{"acme/app"}) {
			t.Errorf("Repos() = %v, %v, want acme/app only", got, err)
		}
	}
}

func testPurgePersonal(t *testing.T, s PersonalStore) {
	ctx := context.Background()
	putKey(t, s, "ann", keyA, "")
	putKey(t, s, "bob", keyB, "")
	apply(t, s, laneWrite("ann", lane1, keyA, store.Quota{}, map[string]string{"a": "123"}))
	apply(t, s, laneWrite("ann", lane2, keyA, store.Quota{}, map[string]string{"b": "4"}))
	apply(t, s, laneWrite("bob", lane1, keyB, store.Quota{}, map[string]string{"a": "5"}))
	res, err := s.PurgePersonal(ctx, "ann", "root", "left", at(5))
	want := store.PersonalPurge{Lanes: 2, Usage: store.Usage{Entries: 2, Bytes: 4}, Key: true}
	if err != nil || res != want {
		t.Fatalf("PurgePersonal(ann) = %+v, %v, want %+v", res, err, want)
	}
	if _, err := s.PersonalKey(ctx, "ann"); !errors.Is(err, store.ErrNoPersonalKey) {
		t.Errorf("PersonalKey(ann) after the purge = %v, want ErrNoPersonalKey", err)
	}
	for _, l := range []string{lane1, lane2} {
		if _, err := s.Snapshot(ctx, store.PersonalRepo("ann", l), false); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Snapshot(ann's lane %s) after the purge = %v, want ErrNotFound", l, err)
		}
	}
	if got := lanes(t, s, "bob"); len(got) != 1 {
		t.Errorf("Lanes(bob) after ann's purge = %+v, want his one lane", got)
	}
	recs, err := s.Purges(ctx, store.PersonalAuditRepo)
	if err != nil || len(recs) != 1 || recs[0].Key != "ann" || recs[0].Actor != "root" || recs[0].Reason != "left" || !recs[0].Time.Equal(at(5)) {
		t.Errorf("Purges(%s) = %+v, %v, want the record of ann's purge", store.PersonalAuditRepo, recs, err)
	}
	if _, err := s.PurgePersonal(ctx, "ann", "root", "", at(6)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PurgePersonal(ann) again = %v, want ErrNotFound", err)
	}
	subjects, err := s.PersonalSubjects(ctx)
	if err != nil || len(subjects) != 1 || subjects[0].Subject != "bob" {
		t.Errorf("PersonalSubjects() after the purge = %+v, %v, want bob only", subjects, err)
	}
}

func testLaneWriteOfOtherSubject(t *testing.T, s PersonalStore) {
	putKey(t, s, "ann", keyA, "")
	w := laneWrite("ann", lane1, keyA, store.Quota{}, map[string]string{"a": "1"})
	w.Repo = store.PersonalRepo("bob", lane1)
	_, err := s.Apply(context.Background(), w)
	if err == nil || !strings.Contains(err.Error(), "not to a lane of its subject") {
		t.Errorf("Apply(ann's write to bob's lane) = %v, want refused", err)
	}
}
