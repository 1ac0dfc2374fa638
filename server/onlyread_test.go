package server

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// valueReads is a store that records the reads of values the server
// makes: of every value (Snapshot with values) and of named keys
// (SnapshotOf, with the keys named).
type valueReads struct {
	store.Store
	mu    sync.Mutex
	full  int
	named [][]string
}

func (s *valueReads) Snapshot(ctx context.Context, repo string, withValues bool) (store.Snapshot, error) {
	if withValues {
		s.mu.Lock()
		s.full++
		s.mu.Unlock()
	}
	return s.Store.Snapshot(ctx, repo, withValues)
}

func (s *valueReads) SnapshotOf(ctx context.Context, repo string, keys []string) (store.Snapshot, error) {
	s.mu.Lock()
	s.named = append(s.named, slices.Clone(keys))
	s.mu.Unlock()
	return s.Store.SnapshotOf(ctx, repo, keys)
}

// counts returns how many reads of every value and of named keys were
// made, and the keys of the last of these.
func (s *valueReads) counts() (int, int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.named) == 0 {
		return s.full, 0, nil
	}
	return s.full, len(s.named), s.named[len(s.named)-1]
}

// TestGetOnlyReadsNamedValues: a full pull that names its keys reads the
// values of those keys alone, also when it answers 304, and a full pull
// without names reads every value.
func TestGetOnlyReadsNamedValues(t *testing.T) {
	s, token := newInternal(t, Config{}, Options{})
	res, err := s.store.Apply(t.Context(), store.Write{Repo: "acme/app", Entries: map[string]string{"a.md": "A", "b.md": "B", "c.md": "C"},
		Subject: "ann", Time: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	reads := &valueReads{Store: s.store.Store}
	s.store.Store = reads
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	get := func(query url.Values, inm string) (int, api.FullResponse) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+api.Path+"?"+query.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if inm != "" {
			req.Header.Set("If-None-Match", api.ETag(inm))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var full api.FullResponse
		if resp.StatusCode == http.StatusOK {
			if err := json.NewDecoder(resp.Body).Decode(&full); err != nil {
				t.Fatal(err)
			}
		}
		return resp.StatusCode, full
	}

	only := url.Values{api.ParamRepo: {"acme/app"}, api.ParamOnly: {"c.md", "gone.md", "a.md"}}
	code, full := get(only, "")
	if got := slices.Sorted(maps.Keys(full.Content.Entries)); code != http.StatusOK || !slices.Equal(got, []string{"a.md", "c.md"}) {
		t.Errorf("GET only=%q = %d with values of %q, want 200 with a.md and c.md", only[api.ParamOnly], code, got)
	}
	if n, m, keys := reads.counts(); n != 0 || m != 1 || !slices.Equal(keys, only[api.ParamOnly]) {
		t.Errorf("GET only: %d reads of every value, %d of named keys (last %q), want 0 and 1 of %q", n, m, keys, only[api.ParamOnly])
	}
	if code, _ := get(only, res.Checksum); code != http.StatusNotModified {
		t.Errorf("GET only with the current If-None-Match = %d, want 304", code)
	}
	if n, m, _ := reads.counts(); n != 0 || m != 2 {
		t.Errorf("GET only answered 304: %d reads of every value, %d of named keys, want 0 and 2", n, m)
	}
	if code, full := get(url.Values{api.ParamRepo: {"acme/app"}}, ""); code != http.StatusOK || len(full.Content.Entries) != 3 {
		t.Errorf("GET = %d with %d values, want 200 with 3", code, len(full.Content.Entries))
	}
	if n, m, _ := reads.counts(); n != 1 || m != 2 {
		t.Errorf("GET: %d reads of every value, %d of named keys, want 1 and 2", n, m)
	}
}
