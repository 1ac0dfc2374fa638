package server

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// FuzzPut sends arbitrary PUT bodies through the real handler and store. A
// body is either refused with a 4xx, storing nothing, or stored; the repo's
// checksum always matches its entries.
func FuzzPut(f *testing.F) {
	for _, seed := range []string{
		`{"entries":{"a.md":"a"}}`,
		`{"entries":{"a.md":"a","b/c.md":"c"},"soft_delete_keys":["x.md"]}`,
		`{"entries":{"../x":"a"}}`,
		`{"entries":{"a.md":null}}`,
		`{"entries":{"a.md":"\ud800"}}`,
		"{\"entries\":{\"a.md\":\"\xff\"}}",
		`{"entries":{"a.md":"a"},"soft_delete_keys":["a.md"]}`,
		`{"entries":`,
		`[]`,
		`{}`,
	} {
		f.Add(seed)
	}
	s, tok := newInternal(f, Config{Limits: api.Limits{MaxEntries: 50, MaxEntryBytes: 1000, MaxBodyBytes: 4000},
		RateLimit: RateLimit{RequestsPerSecond: -1}}, Options{})
	f.Fuzz(func(t *testing.T, body string) {
		before := call(s, tok, "GET", target+"&view=hashes", "")
		w := call(s, tok, "PUT", target, body)
		switch {
		case w.Code == http.StatusOK:
		case w.Code >= 400 && w.Code < 500:
			after := call(s, tok, "GET", target+"&view=hashes", "")
			if after.Code != before.Code || after.Header().Get("ETag") != before.Header().Get("ETag") {
				t.Fatalf("refused PUT (%d) changed the repo: %s -> %s", w.Code, before.Header().Get("ETag"), after.Header().Get("ETag"))
			}
			return
		default:
			t.Fatalf("PUT %q = %d %s, want 200 or 4xx", body, w.Code, w.Body)
		}
		g := call(s, tok, "GET", target+"&view=hashes", "")
		var h api.HashesResponse
		if err := json.Unmarshal(g.Body.Bytes(), &h); err != nil {
			t.Fatalf("decode hashes: %v", err)
		}
		if want := api.RepoChecksum(h.EntryChecksums, h.DeletedEntries); h.Checksum != want {
			t.Fatalf("repo checksum %s, want %s computed from its entries", h.Checksum, want)
		}
	})
}
