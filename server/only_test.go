package server_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
)

func onlyQuery(keys ...string) string {
	return url.Values{api.ParamRepo: {repo}, api.ParamOnly: keys}.Encode()
}

func TestGetOnlySendsTheValuesAsked(t *testing.T) {
	s := servertest.Start(t)
	entries := map[string]string{"a.md": "a", "b.md": "b", "sub/c.md": "c"}
	put(t, s, repo, entries)
	tests := []struct {
		keys []string
		want []string
	}{
		{[]string{"a.md"}, []string{"a.md"}},
		{[]string{"sub/c.md", "a.md"}, []string{"a.md", "sub/c.md"}},
		{[]string{"gone.md", "b.md"}, []string{"b.md"}},
	}
	for _, tt := range tests {
		r := do(t, s.URL, req{query: onlyQuery(tt.keys...), token: s.Token})
		var full api.FullResponse
		decode(t, r, &full)
		if got := slices.Sorted(maps.Keys(full.Content.Entries)); !slices.Equal(got, tt.want) {
			t.Errorf("GET only=%q: values of %q, want %q", tt.keys, got, tt.want)
		}
		for _, k := range tt.want {
			if full.Content.Entries[k] != entries[k] {
				t.Errorf("GET only=%q: %s = %q, want %q", tt.keys, k, full.Content.Entries[k], entries[k])
			}
		}
		if len(full.Content.EntryChecksums) != len(entries) || full.Checksum != checksumOf(entries, nil) {
			t.Errorf("GET only=%q: %d checksums, repo checksum %s, want all %d and %s", tt.keys,
				len(full.Content.EntryChecksums), full.Checksum, len(entries), checksumOf(entries, nil))
		}
	}
}

func TestGetOnlyBadRequests(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a"})
	many := make([]string, api.MaxOnlyKeys+1)
	for i := range many {
		many[i] = fmt.Sprintf("k%d.md", i)
	}
	tests := []struct {
		name, query, code string
	}{
		{"with hashes", onlyQuery("a.md") + "&view=hashes", api.CodeInvalidRequest},
		{"too many", onlyQuery(many...), api.CodeInvalidRequest},
		{"bad key", onlyQuery("../x.md"), api.CodeInvalidKey},
	}
	for _, tt := range tests {
		r := do(t, s.URL, req{query: tt.query, token: s.Token})
		if r.status != http.StatusBadRequest || r.errorCode() != tt.code {
			t.Errorf("%s: GET ?%s = %d %q, want 400 %q", tt.name, tt.query, r.status, r.errorCode(), tt.code)
		}
	}
}

// A pull of named keys that names the repo checksum the client holds the
// checksums of gets those of the named keys alone while the repo is still
// there, and all of them once it moved on.
func TestGetOnlyAtSendsTheNamedChecksums(t *testing.T) {
	s := servertest.Start(t)
	put(t, s, repo, map[string]string{"a.md": "a", "b.md": "b", "c.md": "c"})
	at := put(t, s, repo, map[string]string{"a.md": "a2"}, "c.md").Checksum
	query := func(at string, keys ...string) string {
		return onlyQuery(keys...) + "&" + url.Values{api.ParamAt: {at}}.Encode()
	}
	tests := []struct {
		name, query string
		sums        []string
		deleted     []string
	}{
		{"at the repo's checksum", query(at, "a.md", "c.md"), []string{"a.md"}, []string{"c.md"}},
		{"a key the repo lacks", query(at, "gone.md"), []string{}, []string{}},
		{"at an older checksum", query(checksumOf(map[string]string{"a.md": "a"}, nil), "a.md"), []string{"a.md", "b.md"}, []string{"c.md"}},
	}
	for _, tt := range tests {
		r := do(t, s.URL, req{query: tt.query, token: s.Token})
		var full api.FullResponse
		decode(t, r, &full)
		sums := slices.Sorted(maps.Keys(full.Content.EntryChecksums))
		deleted := slices.Sorted(maps.Keys(full.Content.DeletedEntries))
		if !slices.Equal(sums, tt.sums) || !slices.Equal(deleted, tt.deleted) {
			t.Errorf("%s: checksums of %q, tombstones of %q, want %q and %q", tt.name, sums, deleted, tt.sums, tt.deleted)
		}
		if full.Checksum != at || full.Content.EntryChecksums == nil || full.Content.DeletedEntries == nil {
			t.Errorf("%s: repo checksum %s (want %s), checksums %v, tombstones %v: want both objects", tt.name,
				full.Checksum, at, full.Content.EntryChecksums, full.Content.DeletedEntries)
		}
	}
	for name, q := range map[string]string{
		"at without only": memQuery(repo, api.ParamAt, at),
		"at twice":        query(at, "a.md") + "&" + api.ParamAt + "=x",
		"at empty":        query("", "a.md"),
	} {
		if r := do(t, s.URL, req{query: q, token: s.Token}); r.status != http.StatusBadRequest || r.errorCode() != api.CodeInvalidRequest {
			t.Errorf("%s: GET ?%s = %d %q, want 400 %q", name, q, r.status, r.errorCode(), api.CodeInvalidRequest)
		}
	}
}
