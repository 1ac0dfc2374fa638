package memsync

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// fullState is a state with every field set.
func fullState() *State {
	st := newState("acme/app", "h:1")
	st.LastKnownChecksum = api.EmptyRepoChecksum
	st.LastKnownVersion = 7
	st.StoreID = "0123456789abcdef0123456789abcdef"
	st.ServerChecksums["a.md"] = api.EntryChecksum("a")
	st.Base["a.md"] = api.EntryChecksum("a")
	st.ServerMaxEntries = 10
	st.Tombstones = map[string]int64{"gone.md": 1}
	st.Rejected = map[string]Rejection{"r.md": {Checksum: api.EntryChecksum("r"), Code: "c", Message: "m"}}
	st.Review = map[string]ReviewNote{"p.md": {Proposal: 1, State: ReviewPending}}
	st.HeldDeletions = []string{"h.md"}
	st.Conflicts = []Conflict{{Key: "a.md", Path: "/x", Source: "local", Time: time.Unix(1, 0).UTC()}}
	st.Index["a.md"] = IndexEntry{Size: 1, MtimeNs: 2, Inode: 3, Hash: api.EntryChecksum("a")}
	st.PullAgain = true
	return st
}

// A clone equals its state and shares no map or slice with it: every map
// and slice field of State is checked by reflection, so a field added
// later that clone does not copy fails here.
func TestStateCloneSharesNothing(t *testing.T) {
	st := fullState()
	c := st.clone()
	if !reflect.DeepEqual(c, st) {
		t.Fatalf("clone = %+v, want %+v", c, st)
	}
	a, b := reflect.ValueOf(st).Elem(), reflect.ValueOf(c).Elem()
	for i := range a.NumField() {
		f := a.Type().Field(i)
		switch f.Type.Kind() {
		case reflect.Map, reflect.Slice:
			if a.Field(i).IsNil() {
				t.Errorf("fullState leaves %s nil; set it", f.Name)
			} else if a.Field(i).UnsafePointer() == b.Field(i).UnsafePointer() {
				t.Errorf("clone shares %s with its state", f.Name)
			}
			if holdsReference(f.Type.Elem()) {
				t.Errorf("%s holds references a shallow copy of it would share", f.Name)
			}
		case reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func:
			t.Errorf("State field %s is a reference clone does not copy", f.Name)
		}
	}
}

// holdsReference reports whether a value of t holds a pointer, map,
// slice, channel, function or interface, time.Time's location aside.
func holdsReference(t reflect.Type) bool {
	if t == reflect.TypeFor[time.Time]() {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Chan, reflect.Func:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsReference(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return holdsReference(t.Elem())
	}
	return false
}

// A load after a save takes the state from memory: a file with the same
// inode, size and mtime as the one saved is not read again. The test
// rewrites the file in place with other bytes of the same size and puts
// its mtime back, which only the cache does not notice.
func TestStateLoadAfterSaveIsCached(t *testing.T) {
	s := stateStore{path: filepath.Join(t.TempDir(), "r", "state.json")}
	st := fullState()
	must(t, s.save(st))
	fi, err := os.Stat(s.path)
	must(t, err)
	other := fullState()
	other.LastKnownVersion = 8 // same encoded length
	data := encodeForTest(t, other)
	if len(data) != int(fi.Size()) {
		t.Fatalf("test state encodes to %d bytes, saved %d", len(data), fi.Size())
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteAt(data, 0)
	must(t, err)
	must(t, f.Close())
	must(t, os.Chtimes(s.path, fi.ModTime(), fi.ModTime()))
	got, _, err := s.load("acme/app", "h:1", time.Now())
	if err != nil || got.LastKnownVersion != 7 {
		t.Fatalf("load = version %d, %v; want the cached state's 7", got.LastKnownVersion, err)
	}
}

// What a run changes in the state it loaded reaches the next load only
// through a save; and a state file another process replaced, edited in
// place or corrupted is read again.
func TestStateCacheFollowsTheFile(t *testing.T) {
	s := stateStore{path: filepath.Join(t.TempDir(), "r", "state.json")}
	must(t, s.save(fullState()))
	load := func() *State {
		t.Helper()
		st, aside, err := s.load("acme/app", "h:1", time.Now())
		if err != nil || aside != "" {
			t.Fatalf("load = %q, %v", aside, err)
		}
		return st
	}
	st := load()
	st.Index["b.md"] = IndexEntry{Hash: api.EntryChecksum("b")}
	st.Conflicts[0].Key = "changed.md"
	st.LastKnownVersion = 99
	if again := load(); !reflect.DeepEqual(again, fullState()) {
		t.Fatalf("a load after an unsaved change = %+v, want the saved state", again)
	}

	other := stateStore{path: s.path}
	replaced := fullState()
	replaced.LastKnownVersion = 12345
	must(t, other.save(replaced))
	if got := load(); got.LastKnownVersion != 12345 {
		t.Fatalf("after another store's save, version %d, want 12345", got.LastKnownVersion)
	}

	edited := fullState()
	edited.Base["z.md"] = api.EntryChecksum("z")
	must(t, os.WriteFile(s.path, encodeForTest(t, edited), 0o600))
	if got := load(); got.Base["z.md"] == "" {
		t.Fatal("an edit in place of another size was not read")
	}

	must(t, os.WriteFile(s.path, []byte("{not json"), 0o600))
	st, aside, err := s.load("acme/app", "h:1", time.Now())
	if err != nil || aside == "" || len(st.Base) != 0 {
		t.Fatalf("load(corrupt) = %d base keys, %q, %v; want a fresh state, the file moved aside", len(st.Base), aside, err)
	}
	if got := load(); len(got.Base) != 0 {
		t.Fatalf("after the corrupt file, a load = %d base keys, want a fresh state", len(got.Base))
	}
}

// encodeForTest encodes st as save does.
func encodeForTest(t *testing.T, st *State) []byte {
	t.Helper()
	s := stateStore{path: filepath.Join(t.TempDir(), "state.json")}
	must(t, s.save(st))
	data, err := os.ReadFile(s.path)
	must(t, err)
	return data
}

// A copy prepared ahead is what the next load hands out: equal to the
// saved state, sharing none of its maps, and dropped once the state it
// copies is no longer the one on disk (a save of the store's own, another
// store's, or none cached).
func TestStateSpareIsTheNextLoad(t *testing.T) {
	s := stateStore{path: filepath.Join(t.TempDir(), "r", "state.json")}
	s.cache.prepare() // nothing cached: nothing to copy
	if s.cache.spare != nil {
		t.Fatal("prepare with no state cached made a copy")
	}
	must(t, s.save(fullState()))
	s.cache.prepare()
	spare := s.cache.spare
	if spare == nil {
		t.Fatal("prepare made no copy of the saved state")
	}
	got, _, err := s.load("acme/app", "h:1", time.Now())
	must(t, err)
	if got != spare || s.cache.spare != nil {
		t.Fatal("the load did not hand out the prepared copy, once")
	}
	if !reflect.DeepEqual(got, s.saved()) || got.Index == nil {
		t.Fatalf("prepared copy = %+v, want the saved state", got)
	}
	got.Index["new.md"] = IndexEntry{Hash: api.EntryChecksum("n")}
	got.Base["a.md"] = api.EntryChecksum("changed")
	if _, ok := s.saved().Index["new.md"]; ok || s.saved().Base["a.md"] != api.EntryChecksum("a") {
		t.Fatal("a change to the prepared copy reached the saved state")
	}

	s.cache.prepare()
	next := fullState()
	next.LastKnownVersion = 8
	must(t, s.save(next))
	if st, _, err := s.load("acme/app", "h:1", time.Now()); err != nil || st.LastKnownVersion != 8 {
		t.Fatalf("after a save, load = version %d, %v; want the saved 8, not the copy prepared before it", st.LastKnownVersion, err)
	}

	s.cache.prepare()
	other := stateStore{path: s.path}
	replaced := fullState()
	replaced.LastKnownVersion = 12345
	must(t, other.save(replaced))
	if st, _, err := s.load("acme/app", "h:1", time.Now()); err != nil || st.LastKnownVersion != 12345 {
		t.Fatalf("after another store's save, load = version %d, %v; want 12345", st.LastKnownVersion, err)
	}
}
