package memsync

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/teammemd/teammemd/server/api"
)

// maxOnlyQueryBytes bounds the query of a pull that names its keys: a
// longer one pulls the whole repo instead.
const maxOnlyQueryBytes = 64 << 10

// onlyGetter is a Remote that can pull the values of some keys alone,
// with every checksum and tombstone (PROTOCOL.md section 17).
type onlyGetter interface {
	GetOnly(ctx context.Context, repo, ifNoneMatch string, keys []string) (api.FullResponse, bool, error)
}

// GetOnly pulls the repo with the values of keys alone (extension): a
// server without the extension sends every value, which is as good.
func (c *Client) GetOnly(ctx context.Context, repo, ifNoneMatch string, keys []string) (api.FullResponse, bool, error) {
	var out api.FullResponse
	q := url.Values{api.ParamRepo: {repo}, api.ParamOnly: keys}
	status, err := c.do(ctx, request{op: OpPull, repo: repo, method: http.MethodGet, url: c.endpoint(api.Path, q), ifNoneMatch: ifNoneMatch,
		maxBody: protocolLimits.FullBodyBytes()}, &out)
	if err != nil {
		return out, false, fmt.Errorf("pull %s: %w", repo, err)
	}
	return out, status != http.StatusNotModified, nil
}

// maxOnlyRounds bounds how often a pull asks again for the keys that
// changed while it asked (a teammate's push of several batches), before
// it pulls the whole repo.
const maxOnlyRounds = 3

// fetch pulls the repo changed since the checksum since ("" for all of
// it): with the session's hint of the server's hashes, the values of the keys that
// changed alone, else all of them. An answer that shows a key changed
// that the pull did not ask for (the repo moved on since the hint) is
// asked again with the keys it shows changed.
func (s *session) fetch(ctx context.Context, since string) (api.FullResponse, bool, error) {
	h := s.hint
	og, ok := s.remote.(onlyGetter)
	if h == nil || h.Checksum == "" || !ok || since == "" || h.Checksum == since || len(s.st.Base) == 0 || s.td.caseInsensitive {
		return s.remote.Get(ctx, s.cfg.Repo, since)
	}
	keys := s.changedKeys(h.EntryChecksums)
	for range maxOnlyRounds {
		if keys == nil {
			break
		}
		resp, modified, err := og.GetOnly(ctx, s.cfg.Repo, since, keys)
		if err != nil || !modified || s.unaskedHold(resp) {
			return resp, modified, err
		}
		keys = s.changedKeys(resp.Content.EntryChecksums)
	}
	s.log.Debug("pull of changed keys saw too many changes; pulling all")
	return s.remote.Get(ctx, s.cfg.Repo, since)
}

// changedKeys returns, sorted, the keys of sums (the server's entry
// checksums) whose values a pull needs, or nil when it must fetch every
// value: nothing changed but deletions, or too many keys. On a
// case-insensitive file system the caller pulls whole: telling case
// twins apart needs every key in turn.
func (s *session) changedKeys(sums map[string]string) []string {
	var keys []string
	size := 0
	for k, sum := range sums {
		if s.agreed(k, sum) {
			continue
		}
		keys = append(keys, k)
		size += len(api.ParamOnly) + 2 + 3*len(k) // &only= and the key, escaped at worst
		if len(keys) > api.MaxOnlyKeys || size > maxOnlyQueryBytes {
			return nil
		}
	}
	slices.Sort(keys)
	return keys
}

// agreed reports whether the engine knows key's server value to be sum,
// and holds it as the agreed base: a pull has nothing to write for it.
func (s *session) agreed(key, sum string) bool {
	return s.st.ServerChecksums[key] == sum && s.st.Base[key] == sum
}

// unaskedHold reports whether every key the answer sends no value of is
// one whose value the engine has agreed with the server, as it was when
// the pull asked.
func (s *session) unaskedHold(resp api.FullResponse) bool {
	for k, sum := range resp.Content.EntryChecksums {
		if _, sent := resp.Content.Entries[k]; !sent && !s.agreed(k, sum) {
			return false
		}
	}
	return true
}

// keepUnasked records in sums the checksums of the keys the answer sent
// no value of, which unaskedHold found agreed.
func (s *session) keepUnasked(resp api.FullResponse, sums map[string]string) {
	for k, sum := range resp.Content.EntryChecksums {
		if _, sent := resp.Content.Entries[k]; !sent && s.agreed(k, sum) {
			sums[k] = sum
		}
	}
}
