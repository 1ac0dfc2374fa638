package storetest

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

// odd is a key whose bytes a query must carry as they are: quotes, SQL
// wildcards, brackets, a comma, spaces and non-ASCII letters.
const odd = `notes/it's "50% off"_[draft] (a,b) ü.md`

// testSnapshotOf reads named keys of a repo with live, empty, deleted,
// compacted and absent keys: the values are those of the live keys named,
// everything else is the full snapshot's.
func testSnapshotOf(t *testing.T, s store.Store) {
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"a.md": "A", "b.md": "B", "c.md": "C", "empty.md": "", odd: "odd\x00bytes\n"}, Time: at(1)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"c.md"}, Time: at(2)})
	apply(t, s, store.Write{Repo: repo, Deletes: []string{"b.md"}, Time: at(3)})
	apply(t, s, store.Write{Repo: repo, Entries: map[string]string{"d.md": "D"}, Time: at(4), Deletions: store.DeletionBound{Max: 1}})
	full := snapshot(t, s, repo)
	if full.CompactedThrough == 0 || len(full.Deleted) != 1 {
		t.Fatalf("setup: CompactedThrough %d, %d markers, want a compaction and 1 marker", full.CompactedThrough, len(full.Deleted))
	}
	tests := []struct {
		name string
		keys []string
		want []string
	}{
		{"one live", []string{"a.md"}, []string{"a.md"}},
		{"empty value", []string{"empty.md"}, []string{"empty.md"}},
		{"escaped", []string{odd}, []string{odd}},
		{"deleted", []string{"b.md"}, nil},
		{"compacted", []string{"c.md"}, nil},
		{"absent", []string{"nope.md"}, nil},
		{"other case", []string{"A.md"}, nil},
		{"no keys", nil, nil},
		{"empty list", []string{}, nil},
		{"mixed and repeated", []string{"d.md", "b.md", odd, "nope.md", "d.md", "a.md"}, []string{"a.md", "d.md", odd}},
	}
	for _, tt := range tests {
		got, err := s.SnapshotOf(context.Background(), repo, tt.keys)
		if err != nil {
			t.Errorf("%s: SnapshotOf(%q) error = %v", tt.name, tt.keys, err)
			continue
		}
		want := map[string]string{}
		for _, k := range tt.want {
			want[k] = full.Entries[k]
		}
		if got.Entries == nil || !maps.Equal(got.Entries, want) {
			t.Errorf("%s: SnapshotOf(%q).Entries = %q, want %q", tt.name, tt.keys, got.Entries, want)
		}
		wantSameState(t, tt.name, got, full)
		checkNamedConsistent(t, got)
	}
}

// wantSameState checks that a snapshot of named keys holds the state of
// the full one, every field but the values.
func wantSameState(t *testing.T, name string, got, full store.Snapshot) {
	t.Helper()
	if got.Repo != full.Repo || got.Version != full.Version || !got.LastModified.Equal(full.LastModified) ||
		got.Checksum != full.Checksum || got.CompactedThrough != full.CompactedThrough {
		t.Errorf("%s: SnapshotOf = %s v%d %s at %s compacted through %d, want %s v%d %s at %s compacted through %d", name,
			got.Repo, got.Version, got.Checksum, got.LastModified, got.CompactedThrough,
			full.Repo, full.Version, full.Checksum, full.LastModified, full.CompactedThrough)
	}
	if !maps.Equal(got.EntryChecksums, full.EntryChecksums) || !maps.Equal(got.Deleted, full.Deleted) {
		t.Errorf("%s: SnapshotOf has checksums of %q and markers of %q, want %q and %q", name,
			sortedKeys(got.EntryChecksums), sortedKeys(got.Deleted), sortedKeys(full.EntryChecksums), sortedKeys(full.Deleted))
	}
}

// checkNamedConsistent checks a snapshot of named keys against itself:
// each value has its entry checksum, and the repo checksum is that of
// the checksums and markers.
func checkNamedConsistent(t *testing.T, snap store.Snapshot) {
	t.Helper()
	for k, v := range snap.Entries {
		if got, want := snap.EntryChecksums[k], entrySum(v); got != want {
			t.Errorf("SnapshotOf(%s).EntryChecksums[%q] = %q, want the value's %q", snap.Repo, k, got, want)
		}
	}
	if got, want := snap.Checksum, repoSum(snap.EntryChecksums, snap.Deleted); got != want {
		t.Errorf("SnapshotOf(%s).Checksum = %q, want %q", snap.Repo, got, want)
	}
}

// testSnapshotOfManyKeys names more keys than a backend may put in one
// statement, half of them live.
func testSnapshotOfManyKeys(t *testing.T, s store.Store) {
	const live = 1200
	entries := map[string]string{}
	var keys []string
	for i := range live {
		k := fmt.Sprintf("notes/n%04d.md", i)
		entries[k] = strconv.Itoa(i)
		keys = append(keys, k, fmt.Sprintf("notes/absent%04d.md", i))
	}
	apply(t, s, store.Write{Repo: repo, Entries: entries})
	got, err := s.SnapshotOf(context.Background(), repo, keys)
	if err != nil {
		t.Fatalf("SnapshotOf(%d keys) error = %v", len(keys), err)
	}
	if !maps.Equal(got.Entries, entries) {
		t.Errorf("SnapshotOf(%d keys) = %d values, want the %d live ones", len(keys), len(got.Entries), len(entries))
	}
	checkNamedConsistent(t, got)
}

// testSnapshotOfNotFound: a repo never written is not found, also when
// another repo was.
func testSnapshotOfNotFound(t *testing.T, s store.Store) {
	_, err := s.SnapshotOf(context.Background(), repo, []string{"a.md"})
	wantErr(t, "SnapshotOf(never written)", err, store.ErrNotFound)
	apply(t, s, store.Write{Repo: "acme/other", Entries: map[string]string{"a.md": "A"}})
	_, err = s.SnapshotOf(context.Background(), repo, []string{"a.md"})
	wantErr(t, "SnapshotOf(never written, another repo written)", err, store.ErrNotFound)
}

// testSnapshotOfConsistent reads named keys while writes change them:
// every read holds the values of one version, with their checksums. Write
// n sets every key to n and deletes one key on odd writes, revives it on
// even ones, so the values tell the version they belong to.
func testSnapshotOfConsistent(t *testing.T, s store.Store) {
	const rounds, keys, readers = 30, 6, 2
	named := []string{"k0.md", "k3.md", "k5.md", "flip.md", "nope.md"}
	write := func(round int) store.Write {
		w := store.Write{Repo: repo, Entries: map[string]string{}, Subject: "ann", Time: at(round)}
		for k := range keys {
			w.Entries[fmt.Sprintf("k%d.md", k)] = strconv.Itoa(round)
		}
		if round%2 == 1 {
			w.Deletes = []string{"flip.md"}
		} else {
			w.Entries["flip.md"] = strconv.Itoa(round)
		}
		return w
	}
	apply(t, s, write(0))
	writeWhileReading(t, s, rounds, readers, write, func() error { return checkOneVersion(context.Background(), s, named) })
	if err := checkOneVersion(context.Background(), s, named); err != nil {
		t.Error(err)
	}
}

// checkOneVersion reads named and checks that its values are those of
// the write its version numbers, each with its entry checksum.
func checkOneVersion(ctx context.Context, s store.Store, named []string) error {
	snap, err := s.SnapshotOf(ctx, repo, named)
	if err != nil {
		return fmt.Errorf("SnapshotOf error = %w", err)
	}
	round := strconv.FormatInt(snap.Version-1, 10)
	want := map[string]string{"k0.md": round, "k3.md": round, "k5.md": round}
	if (snap.Version-1)%2 == 0 {
		want["flip.md"] = round
	}
	if !maps.Equal(snap.Entries, want) {
		return fmt.Errorf("SnapshotOf at v%d: values %q, want %q", snap.Version, snap.Entries, want)
	}
	for k, v := range snap.Entries {
		if got := snap.EntryChecksums[k]; got != entrySum(v) {
			return fmt.Errorf("SnapshotOf at v%d: checksum of %s = %s, want the value's %s", snap.Version, k, got, entrySum(v))
		}
	}
	if got := repoSum(snap.EntryChecksums, snap.Deleted); got != snap.Checksum {
		return fmt.Errorf("SnapshotOf at v%d: checksum %s, want %s", snap.Version, snap.Checksum, got)
	}
	return nil
}
