package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// BenchmarkGetOnly1Of1000 measures the full pull that names one key
// (PROTOCOL.md section 17), as the daemon sends it after a change wait,
// of a repo of 1,000 entries of 4 KB.
func BenchmarkGetOnly1Of1000(b *testing.B) {
	s := servertest.Start(b)
	benchGetOnly(b, s.URL, s.Token)
}

// BenchmarkGetOnly1Of1000Postgres is BenchmarkGetOnly1Of1000 on one
// replica on PostgreSQL.
func BenchmarkGetOnly1Of1000Postgres(b *testing.B) {
	r := startPGReplica(b, pgtest.Database(b))
	benchGetOnly(b, r.URL, r.Token)
}

// benchGetOnly seeds the repo with 1,000 entries of 4 KB in four PUTs,
// changes one, and pulls that one by name with the checksum before the
// change as If-None-Match.
func benchGetOnly(b *testing.B, base, token string) {
	const entries, changed = 1000, "notes/topic-0500.md"
	c := benchClient()
	put := base + api.Path + "?" + memQuery(repo)
	var out []byte
	for batch := range entries / 250 {
		seed := map[string]string{}
		for i := batch * 250; i < (batch+1)*250; i++ {
			seed[fmt.Sprintf("notes/topic-%04d.md", i)] = fmt.Sprintf("%04d %s", i, strings.Repeat("x", 4091))
		}
		body, err := json.Marshal(map[string]any{"entries": seed})
		if err != nil {
			b.Fatal(err)
		}
		var code int
		if code, out = send(b, c, http.MethodPut, put, token, string(body)); code != http.StatusOK {
			b.Fatalf("seed PUT = %d %s", code, out)
		}
	}
	before := checksumFrom(b, out)
	if code, out := send(b, c, http.MethodPut, put, token, `{"entries":{"`+changed+`":"changed"}}`); code != http.StatusOK {
		b.Fatalf("PUT = %d %s", code, out)
	}
	get := base + api.Path + "?" + url.Values{api.ParamRepo: {repo}, api.ParamOnly: {changed}}.Encode()
	code, out := send(b, c, http.MethodGet, get, token, "", "If-None-Match", api.ETag(before))
	var full api.FullResponse
	if err := json.Unmarshal(out, &full); code != http.StatusOK || err != nil || len(full.Content.Entries) != 1 ||
		full.Content.Entries[changed] != "changed" || len(full.Content.EntryChecksums) != entries {
		b.Fatalf("GET only=%s = %d, %d values, %d checksums, %v; want 200, its value and %d checksums",
			changed, code, len(full.Content.Entries), len(full.Content.EntryChecksums), err, entries)
	}
	for b.Loop() {
		if code, _ := send(b, c, http.MethodGet, get, token, "", "If-None-Match", api.ETag(before)); code != http.StatusOK {
			b.Fatalf("GET only = %d", code)
		}
	}
}
