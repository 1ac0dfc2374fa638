package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// TestKeyCacheAcrossReplicas writes to one repo through two stores in
// turn, each with the keys it cached from its last write, and wants every
// write to see the other's: each answer's checksum is that of every key
// written so far.
func TestKeyCacheAcrossReplicas(t *testing.T) {
	db := pgtest.Schema(t)
	replicas := []*Store{openURL(t, db), openURL(t, db)}
	ctx := context.Background()
	live := map[string]string{}
	for i := range 6 {
		key, value := fmt.Sprintf("k%d.md", i%4), fmt.Sprint("value ", i)
		res, err := replicas[i/2%2].Apply(ctx, store.Write{Repo: "acme/app", Subject: "writer", Time: time.Now(),
			Entries: map[string]string{key: value}})
		if err != nil {
			t.Fatalf("write %d: Apply() = %v", i, err)
		}
		live[key] = api.EntryChecksum(value)
		if want := api.RepoChecksum(live, nil); res.Checksum != want || res.Version != int64(i+1) {
			t.Errorf("write %d: Apply() = v%d %s, want v%d %s", i, res.Version, res.Checksum, i+1, want)
		}
	}
}

func TestKeyCacheIsBounded(t *testing.T) {
	var c keyCache
	state := func(slug string, keys int) *repoState {
		st := &repoState{slug: slug, id: 1, version: 1, live: map[string]string{}}
		for i := range keys {
			st.live[fmt.Sprint(i)] = "sum"
		}
		return st
	}
	for i := range 5 {
		c.put(state(fmt.Sprint("repo", i), maxCachedKeys/3))
	}
	c.put(state("repo4", maxCachedKeys/3)) // again: counted once
	held := 0
	for _, st := range c.repos {
		held += len(st.live)
	}
	if held != c.keys || c.keys > maxCachedKeys {
		t.Errorf("cache counts %d keys and holds %d, want equal and at most %d", c.keys, held, maxCachedKeys)
	}
	if _, ok := c.get(state("repo4", 0)); !ok {
		t.Errorf("get(repo4) missed the state put last")
	}
	if _, ok := c.get(&repoState{slug: "repo4", id: 1, version: 2}); ok {
		t.Errorf("get(repo4 at another version) = a state, want none")
	}
	c.put(state("huge", maxCachedKeys+1))
	if _, ok := c.get(state("huge", 0)); ok {
		t.Errorf("get(huge) = a state, want none: it is over the bound")
	}
}

// A write planned on a replica's cached keys after another replica wrote
// the repo is checked against the repo as it is: an If-Match of the
// replica's last checksum fails, and one of the other's succeeds.
func TestCachedWriteAfterOtherReplica(t *testing.T) {
	db := pgtest.Schema(t)
	a, b := openURL(t, db), openURL(t, db)
	ctx := context.Background()
	write := func(s *Store, ifMatch, value string) (store.Result, error) {
		return s.Apply(ctx, store.Write{Repo: "acme/app", Subject: "writer", Time: time.Now(), IfMatch: ifMatch,
			Entries: map[string]string{"k.md": value}})
	}
	first, err := write(a, "", "one")
	if err != nil {
		t.Fatal(err)
	}
	second, err := write(b, first.Checksum, "two")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := write(a, first.Checksum, "stale"); !errors.Is(err, store.ErrPrecondition) {
		t.Errorf("Apply(If-Match of a's last write, after b's) = v%d, %v, want ErrPrecondition", res.Version, err)
	}
	res, err := write(a, second.Checksum, "three")
	if err != nil || res.Version != 3 || res.Checksum != api.RepoChecksum(map[string]string{"k.md": api.EntryChecksum("three")}, nil) {
		t.Errorf("Apply(If-Match of b's write) = v%d %s, %v, want v3 with k.md three", res.Version, res.Checksum, err)
	}
	if res, err := write(a, res.Checksum, "four"); err != nil || res.Version != 4 {
		t.Errorf("Apply(after a's own write) = v%d, %v, want v4", res.Version, err)
	}
}
