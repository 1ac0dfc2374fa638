// Package storetest is the conformance suite every teammemd store backend
// passes: call Run with a function that opens a fresh, empty store (and
// RunTokens for the token records). It uses only the store interfaces, so
// the embedded SQLite backend and any shared database backend are held to
// exactly the same behaviour.
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// Opener returns a fresh, empty store for one subtest and arranges, with
// t.Cleanup, for it to be closed.
type Opener func(t *testing.T) store.Store

// Run runs every Store conformance test, each on a fresh store from open.
func Run(t *testing.T, open Opener) {
	runEach(t, open, []subtest[store.Store]{
		{"NotFound", testNotFound},
		{"FirstWrite", testFirstWrite},
		{"EmptyWriteOnNewRepo", testEmptyWriteOnNewRepo},
		{"UpsertMerge", testUpsertMerge},
		{"SoftDelete", testSoftDelete},
		{"Revive", testRevive},
		{"DeleteAbsent", testDeleteAbsent},
		{"DeleteTwice", testDeleteTwice},
		{"WrittenAndDeleted", testWrittenAndDeleted},
		{"NoOpWrite", testNoOpWrite},
		{"IfMatch", testIfMatch},
		{"MaxEntries", testMaxEntries},
		{"DeletionMax", testDeletionMax},
		{"DeletionKeepFor", testDeletionKeepFor},
		{"ValuesByteExact", testValuesByteExact},
		{"KeyByteOrder", testKeyByteOrder},
		{"ReposIsolated", testReposIsolated},
		{"SnapshotOf", testSnapshotOf},
		{"SnapshotOfManyKeys", testSnapshotOfManyKeys},
		{"SnapshotOfNotFound", testSnapshotOfNotFound},
		{"SnapshotOfConsistent", testSnapshotOfConsistent},
		{"CanceledContext", testCanceledContext},
		{"History", testHistory},
		{"HistoryPaging", testHistoryPaging},
		{"RepoHistory", testRepoHistory},
		{"EveryRepoHistoryEmpty", testEveryRepoHistoryEmpty},
		{"HistoryNoContent", testHistoryNoContent},
		{"HistorySince", testHistorySince},
		{"HistoryStops", testHistoryStops},
		{"RevisionClient", testRevisionClient},
		{"PruneHistory", testPruneHistory},
		{"PurgeVersion", testPurgeVersion},
		{"PurgeAllKeepsLive", testPurgeAllKeepsLive},
		{"PurgeLiveRefused", testPurgeLiveRefused},
		{"PurgeLiveIncluded", testPurgeLiveIncluded},
		{"PurgeAllIncludeLive", testPurgeAllIncludeLive},
		{"PurgeDeletedKey", testPurgeDeletedKey},
		{"PurgeNothingLeft", testPurgeNothingLeft},
		{"PurgeNotFound", testPurgeNotFound},
		{"PurgesByRepo", testPurgesByRepo},
		{"AtomicWrites", testAtomicWrites},
		{"ConcurrentIfMatch", testConcurrentIfMatch},
		{"NoLostUpdate", testNoLostUpdate},
	})
}

// subtest is one named conformance test of an S.
type subtest[S any] struct {
	name string
	fn   func(t *testing.T, s S)
}

// runEach runs every test as a subtest, each on a fresh S from open.
func runEach[S any](t *testing.T, open func(t *testing.T) S, tests []subtest[S]) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, open(t))
		})
	}
}

// base is the time of the first write in every test, at millisecond
// precision so any backend stores it exactly.
var base = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// at returns the time of the n-th write of a test.
func at(n int) time.Time { return base.Add(time.Duration(n) * time.Second) }

// apply runs w and fails the test on an error.
func apply(t *testing.T, s store.Store, w store.Write) store.Result {
	t.Helper()
	if w.Time.IsZero() {
		w.Time = base
	}
	if w.Subject == "" {
		w.Subject = "ann"
	}
	r, err := s.Apply(context.Background(), w)
	if err != nil {
		t.Fatalf("Apply(%s, %d entries, %d deletes) error = %v", w.Repo, len(w.Entries), len(w.Deletes), err)
	}
	return r
}

// snapshot reads repo with values and checks that the snapshot is
// consistent with itself.
func snapshot(t *testing.T, s store.Store, repo string) store.Snapshot {
	t.Helper()
	snap, err := s.Snapshot(context.Background(), repo, true)
	if err != nil {
		t.Fatalf("Snapshot(%s) error = %v", repo, err)
	}
	checkConsistent(t, snap)
	hashes, err := s.Snapshot(context.Background(), repo, false)
	if err != nil {
		t.Fatalf("Snapshot(%s, hashes) error = %v", repo, err)
	}
	if hashes.Entries != nil {
		t.Errorf("Snapshot(%s, hashes).Entries = %d entries, want nil", repo, len(hashes.Entries))
	}
	if hashes.Checksum != snap.Checksum || hashes.Version != snap.Version || hashes.CompactedThrough != snap.CompactedThrough ||
		!maps.Equal(hashes.EntryChecksums, snap.EntryChecksums) || !maps.Equal(hashes.Deleted, snap.Deleted) {
		t.Errorf("Snapshot(%s, hashes) = v%d %s, want the full snapshot's v%d %s", repo, hashes.Version, hashes.Checksum, snap.Version, snap.Checksum)
	}
	return snap
}

// checkConsistent checks a snapshot's checksums against its own content,
// computed here independently of the api package.
func checkConsistent(t *testing.T, snap store.Snapshot) {
	t.Helper()
	for k, v := range snap.Entries {
		if got, want := snap.EntryChecksums[k], entrySum(v); got != want {
			t.Errorf("Snapshot(%s).EntryChecksums[%q] = %q, want %q", snap.Repo, k, got, want)
		}
	}
	if snap.Entries != nil && len(snap.Entries) != len(snap.EntryChecksums) {
		t.Errorf("Snapshot(%s) has %d entries and %d entry checksums, want equal", snap.Repo, len(snap.Entries), len(snap.EntryChecksums))
	}
	for k := range snap.Deleted {
		if _, live := snap.EntryChecksums[k]; live {
			t.Errorf("Snapshot(%s): key %q is both live and deleted", snap.Repo, k)
		}
	}
	if got, want := snap.Checksum, repoSum(snap.EntryChecksums, snap.Deleted); got != want {
		t.Errorf("Snapshot(%s).Checksum = %q, want %q", snap.Repo, got, want)
	}
	if got, want := snap.Checksum, api.RepoChecksum(snap.EntryChecksums, snap.Deleted); got != want {
		t.Errorf("Snapshot(%s).Checksum = %q, want api.RepoChecksum %q", snap.Repo, got, want)
	}
}

func entrySum(v string) string {
	sum := sha256.Sum256([]byte(v))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// repoSum is PROTOCOL.md section 3's repo checksum, written out again here
// so the suite does not trust the code under test.
func repoSum(live map[string]string, deleted map[string]int64) string {
	var lines []string
	for k, sum := range live {
		lines = append(lines, k+"\x00"+sum+"\n")
	}
	for k := range deleted {
		lines = append(lines, k+"\x00deleted\n")
	}
	sort.Strings(lines) // NUL sorts before every key byte, so this is key order
	sum := sha256.Sum256([]byte(strings.Join(lines, "")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// wantEntries checks the live values of a snapshot.
func wantEntries(t *testing.T, snap store.Snapshot, want map[string]string) {
	t.Helper()
	if !maps.Equal(snap.Entries, want) {
		t.Errorf("Snapshot(%s).Entries keys = %v, want %v", snap.Repo, sortedKeys(snap.Entries), sortedKeys(want))
	}
}

func wantChanged(t *testing.T, r store.Result, want ...string) {
	t.Helper()
	if !slices.Equal(r.Changed, want) {
		t.Errorf("Apply().Changed = %q, want %q", r.Changed, want)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s error = %v, want %v", what, err, want)
	}
}
