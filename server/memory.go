package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// serveMemory answers the collection route: GET (full, hashes, change wait)
// and PUT. The request's form is checked before its access (PROTOCOL.md
// section 4).
func (s *Server) serveMemory(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	q, repo, err := s.repoQuery(r)
	if err != nil {
		return err
	}
	instance, err := instanceOf(r)
	if err != nil {
		return err
	}
	if r.Method == http.MethodPut {
		return s.put(w, r, p, repo, instance)
	}
	g, err := s.readGet(r, q)
	if err != nil {
		return err
	}
	if !p.Allows(repo, store.LevelRead) {
		return denied(p, repo, store.LevelRead)
	}
	if g.hashes {
		if g.wait > 0 && g.inm != "" {
			return s.waitChange(w, r, waitAsk{subject: p.Subject, repo: repo, inm: g.inm, delta: g.delta, hints: g.hint && r.ProtoAtLeast(1, 1), instance: instance}, g.wait)
		}
		if g.hint && g.wait == 0 && s.announceWrite(p, repo, instance) {
			s.warmWrite(repo)
		}
	}
	return s.get(w, r, repo, g.hashes, g.inm, g.only)
}

// memoryGet is what a GET of the collection route asks for.
type memoryGet struct {
	hashes bool          // view=hashes
	wait   time.Duration // a change wait's, 0 for none
	only   onlyAt
	delta  bool   // the changes since alone (section 18)
	hint   bool   // write hints (section 21), on a hash probe or wait
	inm    string // If-None-Match, "" when absent
}

// readGet reads and checks the parameters and headers of a GET.
func (s *Server) readGet(r *http.Request, q url.Values) (memoryGet, error) {
	var g memoryGet
	view := q.Get(api.ParamView)
	if view != "" && view != api.ViewHashes {
		return g, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "view must be empty or \"hashes\"")
	}
	g.hashes = view == api.ViewHashes
	var err error
	if g.wait, err = s.waitParam(q, view); err != nil {
		return g, err
	}
	if g.only.keys, err = onlyParam(q, view); err != nil {
		return g, err
	}
	if g.only.at, err = atParam(q, g.only.keys); err != nil {
		return g, err
	}
	if g.delta, err = deltaParam(q, g.wait); err != nil {
		return g, err
	}
	if g.hashes {
		if g.hint, err = hintHeader(r); err != nil {
			return g, err
		}
	}
	g.inm = firstETag(r.Header.Get("If-None-Match"))
	return g, nil
}

// onlyAt is what a full pull names (extension): the keys whose values it
// asks for (nil for all of them), and the repo checksum whose checksums
// and tombstones it holds ("" for none).
type onlyAt struct {
	keys []string
	at   string
}

// atParam parses the repo checksum a pull of named keys holds the
// checksums of: "" when absent; an error beside no keys, or when given
// more than once.
func atParam(q url.Values, only []string) (string, error) {
	at, ok := q[api.ParamAt]
	switch {
	case !ok:
		return "", nil
	case only == nil:
		return "", api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "at applies only beside only")
	case len(at) != 1 || at[0] == "":
		return "", api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "at must be given once, with a checksum")
	}
	return at[0], nil
}

// onlyParam parses the keys a full pull asks the values of (extension):
// nil for all of them. It is an error on any other view, with more than
// api.MaxOnlyKeys keys, or with a key that could not be an entry's.
func onlyParam(q url.Values, view string) ([]string, error) {
	keys, ok := q[api.ParamOnly]
	switch {
	case !ok:
		return nil, nil
	case view != "":
		return nil, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "only applies to a full pull, without view")
	case len(keys) > api.MaxOnlyKeys:
		return nil, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, fmt.Sprintf("only names %d keys, at most %d", len(keys), api.MaxOnlyKeys))
	}
	for _, k := range keys {
		if err := api.ValidateKey(k, api.Limits{}); err != nil {
			return nil, api.NewError(http.StatusBadRequest, api.CodeInvalidKey, "only: "+err.Error())
		}
	}
	return keys, nil
}

// repoQuery parses the query string and validates its repo slug, which has
// already been percent-decoded, and names the repo in the access log.
func (s *Server) repoQuery(r *http.Request) (url.Values, string, error) {
	q, err := parseQuery(r)
	if err != nil {
		return nil, "", err
	}
	repo := q.Get(api.ParamRepo)
	if problem := api.SlugProblem(repo); problem != "" {
		return nil, "", api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "invalid repo: the slug "+problem)
	}
	s.logRepo(r.Context(), repo)
	return q, repo, nil
}

// onceParams are the query parameters that take one value: one given
// twice is refused, never read as its first value.
var onceParams = []string{api.ParamRepo, api.ParamView, api.ParamWait, api.ParamKey, api.ParamCursor,
	api.ParamLimit, api.ParamState, api.ParamAfter, api.ParamLane}

// parseQuery parses r's query string: 400 when it is malformed or gives a
// parameter of onceParams twice, naming it.
func parseQuery(r *http.Request) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "malformed query string")
	}
	for _, name := range onceParams {
		if len(q[name]) > 1 {
			return nil, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, name+" must be given once")
		}
	}
	return q, nil
}

// waitParam parses wait=<seconds>, allowed only with view=hashes, and caps
// it at the configured MaxWait.
func (s *Server) waitParam(q url.Values, view string) (time.Duration, error) {
	raw := q.Get(api.ParamWait)
	if raw == "" {
		return 0, nil
	}
	if view != api.ViewHashes {
		return 0, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "wait requires view=hashes")
	}
	n, err := strconv.ParseUint(raw, 10, 32)
	if err != nil {
		return 0, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "wait must be a whole number of seconds")
	}
	d := time.Duration(n) * time.Second
	return min(d, s.limits.MaxWait), nil
}

// denied answers 403 for a request that needs level on repo, saying what
// the token lacks, a write grant where it can read or any grant at all,
// and whom to ask for it: clients relay the message as it is.
func denied(p auth.Principal, repo string, level store.Level) error {
	readOnly := level == store.LevelWrite && p.Allows(repo, store.LevelRead)
	var msg string
	switch {
	case p.Mode == auth.ModeGitHub && readOnly:
		msg = "GitHub lets " + p.Subject + " read this repo but not push to it: writing needs push access on GitHub"
	case p.Mode == auth.ModeGitHub:
		msg = "GitHub gives " + p.Subject + " no access to this repo: ask its owners for access on GitHub"
	case (p.Mode == auth.ModeOIDC || p.Mode == auth.ModeClaude) && readOnly:
		msg = p.Subject + " can read this repo but not write it: ask the server's admin for a write grant ([[server.auth.grants]])"
	case p.Mode == auth.ModeOIDC || p.Mode == auth.ModeClaude:
		msg = p.Subject + " has no grant on this repo: ask the server's admin for one ([[server.auth.grants]])"
	case readOnly:
		msg = "this token can read this repo but not write it: writing needs a write grant: ask the server's admin for a token that has one (teammemd token create)"
	default:
		msg = "this token has no access to this repo: it holds neither a read nor a write grant on it: ask the server's admin for a token whose grants cover it (teammemd token create)"
	}
	return api.NewError(http.StatusForbidden, api.CodeACLDenied, msg)
}

func notFound() error {
	return api.NewError(http.StatusNotFound, api.CodeNotFound, "this repo has no team memory yet")
}

// firstETag returns the first entity tag of an If-None-Match or If-Match
// list, quotes and a weak prefix stripped.
func firstETag(h string) string {
	first, _, _ := strings.Cut(h, ",")
	first = strings.TrimSpace(first)
	first = strings.TrimPrefix(first, "W/")
	return api.StripETag(first)
}

// get answers a full pull or a hash probe, or 304 when inm is current. A
// full pull with only reads and sends the values of those keys alone, and
// of those keys alone their checksums and tombstones when the repo is
// still at the checksum only.at.
func (s *Server) get(w http.ResponseWriter, r *http.Request, repo string, hashes bool, inm string, only onlyAt) error {
	var snap store.Snapshot
	var err error
	if only.keys != nil {
		snap, err = s.store.SnapshotOf(r.Context(), repo, only.keys)
	} else {
		snap, err = s.store.Snapshot(r.Context(), repo, !hashes)
	}
	if errors.Is(err, store.ErrNotFound) {
		return notFound()
	}
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", repo, err)
	}
	if inm != "" && (inm == snap.Checksum || inm == "*") {
		notModified(w, snap.Checksum)
		return nil
	}
	if only.at != "" && api.StripETag(only.at) == snap.Checksum {
		snap = namedOnly(snap, only.keys)
	}
	s.writeSnapshot(w, snap, hashes)
	return nil
}

// namedOnly returns snap with the checksums and tombstones of keys
// alone. It builds new maps: snap's may be a cache's.
func namedOnly(snap store.Snapshot, keys []string) store.Snapshot {
	sums, deleted := map[string]string{}, map[string]int64{}
	for _, k := range keys {
		if sum, ok := snap.EntryChecksums[k]; ok {
			sums[k] = sum
		}
		if at, ok := snap.Deleted[k]; ok {
			deleted[k] = at
		}
	}
	snap.EntryChecksums, snap.Deleted = sums, deleted
	return snap
}

// writeSnapshot sends snap as a full or hashes body with its ETag.
func (s *Server) writeSnapshot(w http.ResponseWriter, snap store.Snapshot, hashes bool) {
	w.Header().Set("ETag", api.ETag(snap.Checksum))
	sums := orEmpty(snap.EntryChecksums)
	snap.Deleted = orEmpty(snap.Deleted)
	if hashes {
		s.writeHashes(w, snap, sums)
		return
	}
	s.writeJSON(w, http.StatusOK, api.FullResponse{
		OrganizationID: s.org, Repo: wireRepo(snap.Repo), Version: snap.Version,
		LastModified: snap.LastModified.UTC(), Checksum: snap.Checksum, CompactedThrough: snap.CompactedThrough,
		Content: api.Content{Entries: orEmpty(snap.Entries), EntryChecksums: sums, DeletedEntries: snap.Deleted},
	})
}

// orEmpty returns m, or an empty map for nil, so every field of a body is
// sent as an object, never null or left out.
func orEmpty[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}

// writeHashes sends the hashes body of snap, encoded once per repo version.
func (s *Server) writeHashes(w http.ResponseWriter, snap store.Snapshot, sums map[string]string) {
	if body, ok := s.hashBodies.get(snap.Repo, snap.Version, snap.Checksum); ok {
		s.writeRaw(w, http.StatusOK, body)
		return
	}
	body, err := json.Marshal(api.HashesResponse{
		OrganizationID: s.org, Repo: wireRepo(snap.Repo), Version: snap.Version,
		LastModified: snap.LastModified.UTC(), Checksum: snap.Checksum,
		EntryChecksums: sums, DeletedEntries: snap.Deleted, CompactedThrough: snap.CompactedThrough,
	})
	if err != nil {
		s.writeEncodeError(w, err)
		return
	}
	s.hashBodies.put(snap.Repo, snap.Version, snap.Checksum, body)
	s.writeRaw(w, http.StatusOK, body)
}
