package memsync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// sameAsMarshal fails t unless encodeState writes st as json.Marshal does.
func sameAsMarshal(t testing.TB, st *State) {
	t.Helper()
	want, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	// A fresh buffer, and one an earlier, longer state filled.
	for _, buf := range [][]byte{nil, bytes.Repeat([]byte(`{"x":1}`), len(want))} {
		got, err := encodeState(st, buf)
		if err != nil {
			t.Fatalf("encodeState: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("encodeState:\n got %s\nwant %s", got, want)
		}
	}
}

// Every field of fullState is set, so that the comparison covers each,
// one added later included.
func TestEncodeStateEveryField(t *testing.T) {
	st := fullState()
	v := reflect.ValueOf(st).Elem()
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("fullState leaves %s unset; set it", v.Type().Field(i).Name)
		}
	}
	sameAsMarshal(t, st)
	st.ServerChecksums, st.Base, st.Index = nil, nil, nil
	sameAsMarshal(t, st)
	st.ServerChecksums, st.Base, st.Index = map[string]string{}, map[string]string{}, map[string]IndexEntry{}
	sameAsMarshal(t, st)
	sameAsMarshal(t, newState("acme/app", "h:1"))
	sameAsMarshal(t, &State{})
}

// appendIndexEntry writes IndexEntry's fields by hand: a field added to
// it must be added there too.
func TestEncodeStateIndexFields(t *testing.T) {
	wantJSONFields[IndexEntry](t, "appendIndexEntry", "size", "mtimeNs", "inode", "hash", "racy,omitempty")
}

// wantJSONFields fails t unless T's fields, in order, have the JSON tags
// want, which the hand-written encoder named by writes.
func wantJSONFields[T any](t *testing.T, by string, want ...string) {
	t.Helper()
	typ := reflect.TypeFor[T]()
	var got []string
	for i := range typ.NumField() {
		got = append(got, typ.Field(i).Tag.Get("json"))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s's fields are %q, %s writes %q: update it", typ.Name(), got, by, want)
	}
}

// hostileRunes are what a key or checksum may hold that JSON escapes, or
// encoding/json treats specially.
var hostileRunes = []string{`"`, `\`, "<", ">", "&", "\x00", "\x1f", "\x7f", "\u2028", "\u2029", "é", "\xff", "\xe2\x80", "/", " ", "a", "Z", "0", ".md", "notes/", `"serverChecksums":null,"base":null,`, `,"index":null`}

func randString(r *rand.Rand) string {
	var b []byte
	for range r.IntN(6) {
		b = append(b, hostileRunes[r.IntN(len(hostileRunes))]...)
	}
	return string(b)
}

func randStringMap(r *rand.Rand) map[string]string {
	if r.IntN(5) == 0 {
		return nil
	}
	m := map[string]string{}
	for range r.IntN(20) {
		m[randString(r)] = randString(r)
	}
	return m
}

// randState is a state with random maps whose keys and values hold every
// kind of character, in the maps encodeState writes and in those it
// leaves to encoding/json.
func randState(r *rand.Rand) *State {
	st := &State{
		Format: r.IntN(3), Repo: randString(r), Server: randString(r), LastKnownChecksum: randString(r),
		LastKnownVersion: r.Int64N(3), StoreID: randString(r), ServerMaxEntries: r.IntN(2),
		ServerChecksums: randStringMap(r), Base: randStringMap(r), PullAgain: r.IntN(2) == 0,
	}
	if r.IntN(5) > 0 {
		st.Index = map[string]IndexEntry{}
		for range r.IntN(20) {
			st.Index[randString(r)] = IndexEntry{Size: r.Int64() - r.Int64(), MtimeNs: r.Int64() - r.Int64(), Inode: r.Uint64(), Hash: randString(r), Racy: r.IntN(2) == 0}
		}
	}
	if r.IntN(2) == 0 {
		st.Tombstones = map[string]int64{randString(r): r.Int64(), "index": 1}
		st.Rejected = map[string]Rejection{randString(r): {Checksum: randString(r), Code: randString(r), Message: randString(r)}}
		st.Review = map[string]ReviewNote{"serverChecksums": {Proposal: 1, State: randString(r)}}
		st.HeldDeletions = []string{randString(r), `"index":null`}
		st.Conflicts = []Conflict{{Key: randString(r), Path: randString(r), Source: "local", Time: time.Unix(r.Int64N(1e10), 0).UTC()}}
	}
	return st
}

func TestEncodeStateRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		sameAsMarshal(t, randState(r))
	}
}

func FuzzEncodeState(f *testing.F) {
	f.Add("notes/a.md", "sha256:00", int64(4096), int64(1700000000000000000), uint64(7), true)
	f.Add("<&>\"\\\u2028", "\xff\x00", int64(-1), int64(0), uint64(0), false)
	f.Fuzz(func(t *testing.T, key, sum string, size, mtime int64, inode uint64, racy bool) {
		st := newState(key, sum)
		st.ServerChecksums[key] = sum
		st.Base[sum] = key
		st.Index[key] = IndexEntry{Size: size, MtimeNs: mtime, Inode: inode, Hash: sum, Racy: racy}
		st.Tombstones = map[string]int64{sum: size}
		sameAsMarshal(t, st)
	})
}

// BenchmarkStateEncode: a state of 1,000 notes, as every push and pull
// of a daemon in such a repo saves it.
func BenchmarkStateEncode(b *testing.B) {
	st := newState("bench/app", "127.0.0.1:8080")
	for i := range 1000 {
		k := fmt.Sprintf("burst/f%05d.md", i)
		h := fmt.Sprintf("sha256:%064x", i*7919)
		st.ServerChecksums[k], st.Base[k] = h, h
		st.Index[k] = IndexEntry{Hash: h, Size: 4096, MtimeNs: 1764400000000000000 + int64(i), Inode: uint64(100000 + i)}
	}
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(st); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encodeState", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodeState(st, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
