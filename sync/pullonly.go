package memsync

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/teammemd/teammemd/server/api"
)

// maxOnlyQueryBytes bounds the query of a pull that names its keys: more
// keys go in further pulls (maxOnlyRequests).
const maxOnlyQueryBytes = 64 << 10

// onlyGetter is a Remote that can pull the values of some keys alone
// (PROTOCOL.md section 17).
type onlyGetter interface {
	GetOnly(ctx context.Context, repo, ifNoneMatch, at string, keys []string) (api.FullResponse, bool, error)
}

// GetOnly pulls the repo with the values of keys alone (extension): a
// server without the extension sends every value, which is as good. With
// at, the repo checksum whose checksums and tombstones the caller holds,
// an answer at that checksum may carry those of keys alone; any other
// answer carries them all.
func (c *Client) GetOnly(ctx context.Context, repo, ifNoneMatch, at string, keys []string) (api.FullResponse, bool, error) {
	var out api.FullResponse
	q := url.Values{api.ParamRepo: {repo}, api.ParamOnly: keys}
	if at != "" {
		q.Set(api.ParamAt, at)
	}
	status, err := c.do(ctx, request{op: OpPull, repo: repo, method: http.MethodGet, url: c.endpoint(api.Path, q), ifNoneMatch: ifNoneMatch,
		maxBody: protocolLimits.FullBodyBytes()}, &out)
	if err != nil {
		return out, false, fmt.Errorf("pull %s: %w", repo, err)
	}
	return out, status != http.StatusNotModified, nil
}

// maxOnlyChase bounds the requests a pull makes naming its keys, all its
// rounds together, before it pulls the whole repo. A round asks again for
// the keys that changed while the round before asked (a teammate's push
// of several batches), only for the values the rounds before did not
// bring as the newest answer has them; the pull stops chasing sooner, once
// its rounds have named as many keys as the repo holds, when a whole pull
// costs less.
const maxOnlyChase = 64

// maxOnlyRequests bounds the requests one round splits its keys into,
// each naming at most api.MaxOnlyKeys keys in a query of at most
// maxOnlyQueryBytes: a pull needing more pulls the whole repo.
const maxOnlyRequests = 8

// fetch pulls the repo changed since the checksum since ("" for all of
// it): with the session's hint of the server's hashes, the values of the keys that
// changed alone, else all of them. An answer that shows a key changed
// that the pull did not ask for, or changed again since it asked (the
// repo moved on since the hint), is followed by a pull of those values
// alone; the values are taken once the last answer's checksums have them
// all.
func (s *session) fetch(ctx context.Context, since string) (api.FullResponse, bool, error) {
	h := s.hint
	og, ok := s.remote.(onlyGetter)
	if h == nil || h.Checksum == "" || !ok || since == "" || h.Checksum == since || len(s.st.Base) == 0 {
		return s.remote.Get(ctx, s.cfg.Repo, since)
	}
	got := newPulledValues() // the values of the rounds so far
	held := heldSums{checksum: h.Checksum, sums: h.EntryChecksums, deleted: h.DeletedEntries}
	var keys []string
	if h.Entries != nil {
		// The wait brought values: what they leave lacking is asked for,
		// in one look at every key.
		resp := hintAnswer(*h)
		held.complete(&resp)
		got.add(h.Entries)
		var named bool
		if keys, named = s.lacking(resp, got); named && len(keys) == 0 {
			resp.Content.Entries = s.valuesOf(resp, got)
			return resp, true, nil
		}
	} else {
		keys = s.changedKeys(h.EntryChecksums)
	}
	return s.chaseNamed(ctx, og, since, held, keys, got)
}

// chaseNamed pulls the values of keys, then of the keys each answer shows
// lacking, until got holds every value the last answer's checksums need
// (as fetch describes), or pulls the whole repo since since once naming
// them would take too many requests (keys nil: at once).
func (s *session) chaseNamed(ctx context.Context, og onlyGetter, since string, held heldSums, keys []string, got *pulledValues) (api.FullResponse, bool, error) {
	var chase onlyChase
	for keys != nil && chase.more(len(held.sums)) {
		resp, modified, err := s.fetchRound(ctx, og, since, &held, keys, got, &chase)
		if err != nil || !modified {
			return resp, modified, err
		}
		var named bool
		if keys, named = s.lacking(resp, got); named && len(keys) == 0 {
			resp.Content.Entries = s.valuesOf(resp, got)
			return resp, true, nil
		}
	}
	s.log.Debug("pull of changed keys saw too many changes; pulling all", "requests", chase.requests, "keys", chase.keys)
	return s.remote.Get(ctx, s.cfg.Repo, since)
}

// fetchUnapplied pulls again what the last pull left unapplied (PullAgain)
// once the server has said the repo is as that pull left it. The keys
// whose server checksum the state holds but not as the agreed base (a file
// of the user's in the way, a case twin) are pulled by name, and chased as
// fetch chases them should the repo move meanwhile. With every key agreed
// (what is left is a file it could not read, or a deletion to judge
// again), the answer is the state's own, without values: a whole pull
// would write nothing else. It pulls the whole repo when the state's
// checksums do not make up the repo checksum it synced to, or when the
// server or the state leave no other way.
func (s *session) fetchUnapplied(ctx context.Context) (api.FullResponse, bool, error) {
	og, ok := s.remote.(onlyGetter)
	held, known := s.stateSums()
	if !ok || !known || len(s.st.Base) == 0 {
		return s.remote.Get(ctx, s.cfg.Repo, "")
	}
	keys := s.unagreed(held.sums)
	if len(keys) == 0 {
		s.log.Debug("pulling again what the last pull left unapplied, from the state")
		return s.stateAnswer(held), true, nil
	}
	if tooManyToName(keys) {
		keys = nil
	}
	s.log.Debug("pulling again the keys the last pull left unapplied", "keys", len(keys))
	return s.chaseNamed(ctx, og, "", held, keys, newPulledValues())
}

// stateAnswer is the answer of a whole pull at the checksum of held, the
// state's own, without its values: it serves only while the server holds
// that checksum, which carries every checksum and deletion marker, so no
// compaction can have come between.
func (s *session) stateAnswer(held heldSums) api.FullResponse {
	resp := api.FullResponse{Repo: s.cfg.Repo, Version: s.st.LastKnownVersion, Checksum: held.checksum}
	resp.Content.Entries = map[string]string{}
	resp.Content.EntryChecksums, resp.Content.DeletedEntries = held.sums, held.deleted
	return resp
}

// stateSums are the server's entry checksums and deletion markers as the
// state holds them, copied, and true when they make up the repo checksum
// the state last synced to.
func (s *session) stateSums() (heldSums, bool) {
	c := s.st.LastKnownChecksum
	if c == "" || s.st.ServerChecksums == nil {
		return heldSums{}, false
	}
	sums, dead := maps.Clone(s.st.ServerChecksums), maps.Clone(s.st.Tombstones)
	if dead == nil {
		dead = map[string]int64{}
	}
	if api.RepoChecksum(sums, dead) != c {
		return heldSums{}, false
	}
	return heldSums{checksum: c, sums: sums, deleted: dead}, true
}

// onlyChase counts the requests of a pull that names its keys and the keys
// they named, over all its rounds.
type onlyChase struct{ requests, keys int }

// more reports whether the pull may ask again rather than pull the whole
// repo of live keys: its rounds named fewer keys than that, in fewer than
// maxOnlyChase requests.
func (c onlyChase) more(live int) bool {
	return c.requests < maxOnlyChase && (c.requests == 0 || c.keys < live)
}

// pulledValues are the values a pull's rounds brought, each with its entry
// checksum, worked out once.
type pulledValues struct{ values, sums map[string]string }

func newPulledValues() *pulledValues {
	return &pulledValues{values: map[string]string{}, sums: map[string]string{}}
}

// add keeps entries' values, replacing older ones of the same keys.
func (p *pulledValues) add(entries map[string]string) {
	for k, v := range entries {
		p.values[k] = v
		p.sums[k] = entryStringSum(v)
	}
}

// has reports whether the value of k the rounds brought has checksum sum.
func (p *pulledValues) has(k, sum string) bool {
	got, ok := p.sums[k]
	return ok && got == sum
}

// fetchRound asks for the values of keys, in requests of at most
// api.MaxOnlyKeys keys and maxOnlyQueryBytes of query each, adds what
// each answer brings to got and moves held to it. It returns the first
// answer that shows the repo moved on from held's checksum, or else the
// last: the caller asks again for what that answer's checksums lack.
func (s *session) fetchRound(ctx context.Context, og onlyGetter, since string, held *heldSums, keys []string, got *pulledValues, chase *onlyChase) (api.FullResponse, bool, error) {
	var resp api.FullResponse
	for len(keys) > 0 {
		n := nameable(keys)
		chase.requests++
		chase.keys += n
		var modified bool
		var err error
		resp, modified, err = og.GetOnly(ctx, s.cfg.Repo, since, held.checksum, keys[:n])
		if err != nil || !modified {
			return resp, modified, err
		}
		moved := resp.Checksum != held.checksum
		*held = held.complete(&resp)
		got.add(resp.Content.Entries)
		if moved {
			break
		}
		keys = keys[n:]
	}
	return resp, true, nil
}

// nameable is how many of keys, from the first, one pull may name: at
// most api.MaxOnlyKeys, in at most maxOnlyQueryBytes of query, and at
// least one.
func nameable(keys []string) int {
	n, bytes := 0, 0
	for n < len(keys) && n < api.MaxOnlyKeys {
		bytes += onlyQueryBytes(keys[n : n+1])
		if n > 0 && bytes > maxOnlyQueryBytes {
			break
		}
		n++
	}
	return n
}

// tooManyToName reports whether naming keys takes more than
// maxOnlyRequests pulls.
func tooManyToName(keys []string) bool {
	requests := 0
	for len(keys) > 0 && requests <= maxOnlyRequests {
		keys = keys[nameable(keys):]
		requests++
	}
	return requests > maxOnlyRequests
}

// hintAnswer is the answer a pull at h's checksum gets, without its
// checksums, tombstones and values: h is a change wait's whole hashes
// (heldSums.complete adds those it holds), with the values of the keys it
// changed when the server sent them (PROTOCOL.md section 18), each taken
// only where its checksum is h's.
func hintAnswer(h api.HashesResponse) api.FullResponse {
	return api.FullResponse{
		OrganizationID: h.OrganizationID, Repo: h.Repo, Version: h.Version, LastModified: h.LastModified,
		Checksum: h.Checksum, CompactedThrough: h.CompactedThrough,
	}
}

// heldSums is every entry checksum and tombstone of the repo at one repo
// checksum, as a change wait's or a pull's answer brought them.
type heldSums struct {
	checksum string
	sums     map[string]string
	deleted  map[string]int64
}

// complete gives resp, the answer to a pull that named its keys and
// h.checksum, every checksum and tombstone: h's when resp is at
// h.checksum (the server may have sent those of the named keys alone),
// else resp's own, which are complete. It returns what the client holds
// after resp. resp and h then share their maps, which no one modifies
// (a pull that needs the tombstones changed copies them first).
func (h heldSums) complete(resp *api.FullResponse) heldSums {
	c := &resp.Content
	if resp.Checksum != h.checksum {
		return heldSums{checksum: resp.Checksum, sums: c.EntryChecksums, deleted: c.DeletedEntries}
	}
	c.EntryChecksums, c.DeletedEntries = h.sums, h.deleted
	if c.EntryChecksums == nil {
		c.EntryChecksums = map[string]string{}
	}
	if c.DeletedEntries == nil {
		c.DeletedEntries = map[string]int64{}
	}
	return h
}

// lacking returns, sorted, the keys of resp whose values the pull needs
// and got does not hold as resp's checksums have them, and true; or nil
// and false when there are too many to name (see changedKeys).
func (s *session) lacking(resp api.FullResponse, got *pulledValues) ([]string, bool) {
	var keys []string
	for k, sum := range resp.Content.EntryChecksums {
		if s.agreed(k, sum) || got.has(k, sum) {
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if tooManyToName(keys) {
		return nil, false
	}
	return keys, true
}

// valuesOf returns the values of got that resp's checksums have: the
// values of resp's version the rounds brought, and no other.
func (s *session) valuesOf(resp api.FullResponse, got *pulledValues) map[string]string {
	out := make(map[string]string, len(got.values))
	for k, v := range got.values {
		if sum, live := resp.Content.EntryChecksums[k]; live && !s.agreed(k, sum) && got.has(k, sum) {
			out[k] = v
		}
	}
	return out
}

// changedKeys returns, sorted, the keys of sums (the server's entry
// checksums) whose values a pull needs, or nil when it must fetch every
// value: nothing changed but deletions, or more keys than
// maxOnlyRequests pulls can name. (On a case-insensitive file system the
// pull still looks at every key for case twins: plannedKeys.)
func (s *session) changedKeys(sums map[string]string) []string {
	keys := s.unagreed(sums)
	if tooManyToName(keys) {
		return nil
	}
	return keys
}

// unagreed returns, sorted, the keys of sums (the server's entry
// checksums) the engine does not hold as agreed at their checksum.
func (s *session) unagreed(sums map[string]string) []string {
	var keys []string
	for k, sum := range sums {
		if !s.agreed(k, sum) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// onlyQueryBytes is the most bytes the query naming keys can take: each
// key's "&only=" and the key escaped at worst.
func onlyQueryBytes(keys []string) int {
	n := 0
	for _, k := range keys {
		n += len(api.ParamOnly) + 2 + 3*len(k)
	}
	return n
}

// agreed reports whether the engine knows key's server value to be sum,
// and holds it as the agreed base: a pull has nothing to write for it.
func (s *session) agreed(key, sum string) bool {
	return s.st.ServerChecksums[key] == sum && s.st.Base[key] == sum
}

// keepUnasked records in sums the checksums of the keys the answer sent
// no value of, which the pull found agreed (lacking).
func (s *session) keepUnasked(resp api.FullResponse, sums map[string]string) {
	for k, sum := range resp.Content.EntryChecksums {
		if _, sent := resp.Content.Entries[k]; !sent && s.agreed(k, sum) {
			sums[k] = sum
		}
	}
}
