package api

import (
	"errors"
	"maps"
	"reflect"
	"strconv"
	"testing"
)

// applyByCopy is the changes c applied to held the plain way, as the
// protocol defines them: copy held's maps, set every key c names, and
// take the repo checksum of the whole result.
func applyByCopy(held, c HashesResponse) (sums map[string]string, deleted map[string]int64, checksum string) {
	sums, deleted = maps.Clone(held.EntryChecksums), maps.Clone(held.DeletedEntries)
	if sums == nil {
		sums = map[string]string{}
	}
	if deleted == nil {
		deleted = map[string]int64{}
	}
	for k, sum := range c.EntryChecksums {
		sums[k] = sum
		delete(deleted, k)
	}
	for k, at := range c.DeletedEntries {
		deleted[k] = at
		delete(sums, k)
	}
	return sums, deleted, RepoChecksum(sums, deleted)
}

// heldCase makes whole hashes and changes to them from data: each byte
// sets one key of a small set, some sorting before and after one another
// and one a prefix of another, as absent, live, a tombstone or both in
// the hashes held, and as untouched, set live, deleted or both in the
// changes.
func heldCase(data []byte) (held, c HashesResponse) {
	keys := []string{"a.md", "a.md/x", "B.md", "z/ü.md", "m.md", "a", "zz.md", "0.md"}
	held = HashesResponse{EntryChecksums: map[string]string{}, DeletedEntries: map[string]int64{}}
	c = HashesResponse{EntryChecksums: map[string]string{}, DeletedEntries: map[string]int64{}}
	for i, b := range data {
		k := keys[i%len(keys)]
		if i >= len(keys) {
			k += strconv.Itoa(i)
		}
		v := EntryChecksum(k + strconv.Itoa(int(b>>4)))
		switch b & 3 {
		case 1:
			held.EntryChecksums[k] = v
		case 2:
			held.DeletedEntries[k] = int64(b)
		case 3:
			held.EntryChecksums[k], held.DeletedEntries[k] = v, int64(b)
		}
		switch b >> 2 & 3 {
		case 1:
			c.EntryChecksums[k] = EntryChecksum(k + "new")
		case 2:
			c.DeletedEntries[k] = int64(b) + 1
		case 3:
			c.EntryChecksums[k], c.DeletedEntries[k] = EntryChecksum(k+"new"), int64(b)+2
		}
	}
	held.Checksum = RepoChecksum(held.EntryChecksums, held.DeletedEntries)
	_, _, c.Checksum = applyByCopy(held, c)
	c.ChangedSince = held.Checksum
	return held, c
}

// checkHeldApply applies c to a Held of held and checks the answer
// against the plain way's, held left as it was; then that changes whose
// checksum is not the result's fail with ErrChangesMismatch and leave the
// Held usable, and that a used Held refuses a second Apply.
func checkHeldApply(t *testing.T, held, c HashesResponse) {
	t.Helper()
	before := HashesResponse{Checksum: held.Checksum, EntryChecksums: maps.Clone(held.EntryChecksums), DeletedEntries: maps.Clone(held.DeletedEntries)}
	p := NewHeld(held)
	wrong := c
	wrong.Checksum = EmptyRepoChecksum
	if wrong.Checksum != c.Checksum {
		if _, err := p.Apply(wrong); !errors.Is(err, ErrChangesMismatch) {
			t.Fatalf("changes with another checksum: err = %v, want ErrChangesMismatch", err)
		}
	}
	got, err := p.Apply(c)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	sums, deleted, checksum := applyByCopy(held, c)
	if got.Checksum != checksum || got.ChangedSince != "" || !maps.Equal(got.EntryChecksums, sums) || !maps.Equal(got.DeletedEntries, deleted) {
		t.Fatalf("Apply = %v %v %s, want %v %v %s", got.EntryChecksums, got.DeletedEntries, got.Checksum, sums, deleted, checksum)
	}
	if !reflect.DeepEqual(before, HashesResponse{Checksum: held.Checksum, EntryChecksums: held.EntryChecksums, DeletedEntries: held.DeletedEntries}) {
		t.Fatal("Apply modified the hashes its Held was made of")
	}
	if _, err := p.Apply(c); !errors.Is(err, errHeldUsed) {
		t.Fatalf("a second Apply: err = %v, want errHeldUsed", err)
	}
}

// Changes applied to a Held make what the plain way makes of the same
// hashes: keys that sort first, last and between, prefixes of others,
// non-ASCII, keys both live and tombstoned, deletions of keys never held.
func TestHeldApplyAsCopy(t *testing.T) {
	for _, data := range [][]byte{
		{}, {1}, {4}, {8}, {12}, {5, 6, 7, 9, 10, 11, 13, 14, 15},
		{0x41, 0x82, 0xc3, 0x14, 0x25, 0x36, 0x47, 0x58, 0x69, 0x7a, 0x8b, 0x9c},
		{1, 1, 1, 1, 1, 1, 1, 1, 4, 4, 4, 4, 4, 4, 4, 4},
		{2, 3, 2, 3, 2, 3, 2, 3, 8, 12, 8, 12, 8, 12, 8, 12},
	} {
		held, c := heldCase(data)
		checkHeldApply(t, held, c)
	}
}

// Changes to whole hashes held as nil maps (a repo never written).
func TestHeldApplyToNothing(t *testing.T) {
	held := HashesResponse{Checksum: EmptyRepoChecksum}
	c := HashesResponse{ChangedSince: EmptyRepoChecksum, EntryChecksums: map[string]string{"a.md": EntryChecksum("a")}}
	_, _, c.Checksum = applyByCopy(held, c)
	checkHeldApply(t, held, c)
}

func FuzzHeldApply(f *testing.F) {
	f.Add([]byte{0x41, 0x82, 0xc3, 0x14, 0x25, 0x36, 0x47, 0x58, 0x69})
	f.Add([]byte{5, 6, 7, 9, 10, 11, 13, 14, 15, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64 {
			return
		}
		held, c := heldCase(data)
		checkHeldApply(t, held, c)
	})
}
