package mcpserver

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// laggingStore is a server store whose change feed has not heard of the
// latest writes, as a replica's feed may lag: Changed never fires, so
// the cache learns of a change from a refused precondition alone.
type laggingStore struct {
	mu      sync.Mutex
	entries map[string]string
	version int64
	writes  int
}

func (s *laggingStore) Subject() string                         { return "test" }
func (s *laggingStore) Repos(context.Context) ([]string, error) { return []string{"acme/app"}, nil }
func (s *laggingStore) Readable(context.Context, string) error  { return nil }
func (s *laggingStore) Changed(string) (<-chan struct{}, func()) {
	return make(chan struct{}), func() {}
}
func (s *laggingStore) History(context.Context, string, string, int, bool) (api.HistoryResponse, error) {
	return api.HistoryResponse{}, nil
}

func (s *laggingStore) checksum() string {
	sums := map[string]string{}
	for k, v := range s.entries {
		sums[k] = api.EntryChecksum(v)
	}
	return api.RepoChecksum(sums, nil)
}

func (s *laggingStore) Notes(context.Context, string) (api.FullResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sums := map[string]string{}
	for k, v := range s.entries {
		sums[k] = api.EntryChecksum(v)
	}
	return api.FullResponse{Repo: "acme/app", Version: s.version, Checksum: s.checksum(),
		Content: api.Content{Entries: maps.Clone(s.entries), EntryChecksums: sums}}, nil
}

func (s *laggingStore) Write(_ context.Context, _ string, req api.PutRequest, ifMatch string) (api.PutResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	if ifMatch != s.checksum() {
		return api.PutResponse{}, api.NewError(http.StatusPreconditionFailed, api.CodePrecondition, "If-Match does not equal the repo's current checksum")
	}
	s.set(req.Entries)
	for _, k := range req.SoftDeleteKeys {
		delete(s.entries, k)
	}
	return api.PutResponse{Checksum: s.checksum()}, nil
}

// set changes entries behind the cache's back.
func (s *laggingStore) set(entries map[string]string) {
	maps.Copy(s.entries, entries)
	s.version++
}

// A write that another note's change got ahead of is tried again on the
// repo read anew, and is read back at once; a write on a note changed
// meanwhile is refused as stale, with the note's current sha256, only
// once the repo has been read anew.
func TestRemoteWriteAfterAnotherChange(t *testing.T) {
	ctx := context.Background()
	st := &laggingStore{entries: map[string]string{"a.md": "A\n", "b.md": "B\n"}}
	cache := newRepoCache(maxCachedRepos)
	space := func() *remoteSpace {
		snap, err := cache.current(ctx, st, "acme/app", false)
		if err != nil {
			t.Fatal(err)
		}
		return &remoteSpace{st: st, cache: cache, snap: snap}
	}
	sp := space()
	st.mu.Lock()
	st.set(map[string]string{"b.md": "B2\n"})
	st.mu.Unlock()
	if _, err := sp.Put(ctx, "a.md", []byte("A2\n"), api.EntryChecksum("A\n")); err != nil {
		t.Fatalf("Put after another note changed = %v, want it written", err)
	}
	if st.entries["a.md"] != "A2\n" || st.entries["b.md"] != "B2\n" || st.writes != 2 {
		t.Errorf("store = %v after %d writes, want a.md written on the second try and b.md kept", st.entries, st.writes)
	}
	if got, err := space().Read("a.md"); err != nil || string(got) != "A2\n" {
		t.Errorf("Read after the write = %q, %v; want what was written, before the change feed tells of it", got, err)
	}

	sp = space()
	st.mu.Lock()
	st.set(map[string]string{"a.md": "A3\n"})
	st.mu.Unlock()
	_, err := sp.Put(ctx, "a.md", []byte("A4\n"), api.EntryChecksum("A2\n"))
	var se *memsync.StaleError
	if !errors.As(err, &se) || se.Current != api.EntryChecksum("A3\n") || !strings.Contains(err.Error(), "changed since it was read") {
		t.Errorf("Put on a note changed meanwhile = %v, want it refused as stale with the current sha256", err)
	}
	if st.entries["a.md"] != "A3\n" {
		t.Errorf("a.md = %q, want the teammate's change kept", st.entries["a.md"])
	}
}
