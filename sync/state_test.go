package memsync

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

func TestStateRoundTrip(t *testing.T) {
	s := stateStore{path: filepath.Join(t.TempDir(), "r", "state.json")}
	st := newState("acme/app", "h:1")
	st.LastKnownChecksum = api.EmptyRepoChecksum
	st.ServerChecksums["a.md"] = api.EntryChecksum("a")
	st.Base["a.md"] = api.EntryChecksum("a")
	must(t, s.save(st))
	got, aside, err := s.load("acme/app", "h:1", time.Now())
	if err != nil || aside != "" || got.ServerChecksums["a.md"] != st.ServerChecksums["a.md"] {
		t.Fatalf("load = %+v, %q, %v; want the saved state", got, aside, err)
	}
	must(t, os.WriteFile(s.path, []byte("{not json"), 0o600))
	got, aside, err = s.load("acme/app", "h:1", time.Now())
	if err != nil || aside == "" || len(got.ServerChecksums) != 0 {
		t.Fatalf("load(corrupt) = %+v, %q, %v; want a fresh state and the file moved aside", got, aside, err)
	}
	if _, err := os.Stat(aside); err != nil {
		t.Errorf("corrupt state not kept at %s: %v", aside, err)
	}
}

func FuzzDecodeState(f *testing.F) {
	good, _ := json.Marshal(newState("acme/app", "h"))
	f.Add(good)
	f.Add([]byte(`{"format":1,"serverChecksums":{"../x":"sha256:00"}}`))
	f.Add([]byte(`{"format":2}`))
	f.Add([]byte(`{"format":1} trailing`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := decodeState(data)
		if err != nil {
			return
		}
		for k, sum := range st.ServerChecksums {
			if api.ValidateKey(k, api.Limits{}) != nil || !validChecksum(sum) {
				t.Fatalf("decodeState accepted key %q checksum %q", k, sum)
			}
		}
		if st.Base == nil || st.Index == nil || st.ServerChecksums == nil {
			t.Fatal("decodeState left a map nil")
		}
	})
}
