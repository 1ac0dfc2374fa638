package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// put applies an upsert-merge from the client instance that names itself
// ("" for none). Checks run in the protocol's order: the body's form (400,
// 413), then what write checks. On a repo under review the write is held
// as a proposal instead.
func (s *Server) put(w http.ResponseWriter, r *http.Request, p auth.Principal, repo, instance string) error {
	savetrace.Mark("server.put", "")
	req, err := s.readPut(w, r)
	if err != nil {
		return err
	}
	ifMatch, err := s.precondition(r.Context(), repo, readIfMatch(r.Header))
	if err != nil {
		return err
	}
	resp, err := s.write(r.Context(), p, repo, req, ifMatch, origin{client: s.writeClient(r.Context(), p, r.Header), instance: instance})
	if err != nil {
		return err
	}
	if resp.Review != nil {
		w.Header().Set(api.ProposalHeader, fmt.Sprint(resp.Review.Proposal))
	}
	w.Header().Set("ETag", api.ETag(resp.Checksum))
	s.writeJSON(w, http.StatusOK, resp)
	return nil
}

// origin is where a write comes from: the client description recorded
// in history, and the client instance whose parked change waits the
// write carries (see carryOwnWaits), "" for none.
type origin struct {
	client, instance string
}

// write is every write a client asks for to a team repo, through the
// API's PUT, the MCP tools or the web view: the repo's name (400), access
// (403), the secret scan (422), then on a repo under review a proposal,
// else commit.
func (s *Server) write(ctx context.Context, p auth.Principal, repo string, req api.PutRequest, ifMatch string, o origin) (api.PutResponse, error) {
	if err := s.checkSlug(ctx, repo); err != nil {
		return api.PutResponse{}, err
	}
	if !p.Allows(repo, store.LevelWrite) {
		return api.PutResponse{}, denied(p, repo, store.LevelWrite)
	}
	s.announceWrite(p, repo, o.instance)
	if err := s.scan(ctx, req); err != nil {
		return api.PutResponse{}, err
	}
	savetrace.Mark("server.scanned", "")
	if s.ReviewRequired(repo) {
		return s.proposeWrite(ctx, p, repo, ifMatch, req)
	}
	return s.commit(ctx, store.Write{Repo: repo, IfMatch: ifMatch, Subject: p.Subject, Client: o.client}, req, o.instance)
}

// commit stores req as wr, which names its repo, precondition and writer:
// the store's precondition (412) and entry count (413), and for a personal
// lane its key (409) and quota (413), atomically. Every write a client
// asks for ends here: a team repo's after write's checks, a lane's after
// putLane's. instance names the client instance whose waits it carries.
func (s *Server) commit(ctx context.Context, wr store.Write, req api.PutRequest, instance string) (api.PutResponse, error) {
	now := s.now().UTC()
	wr.Entries, wr.Deletes, wr.Time = req.Entries, req.SoftDeleteKeys, now
	res, written, err := s.apply(ctx, wr, instance)
	if err != nil {
		return api.PutResponse{}, err
	}
	return api.PutResponse{
		OrganizationID: s.org, Repo: wireRepo(wr.Repo), Version: res.Version,
		LastModified: lastModified(res, now), Checksum: res.Checksum,
		Written: answerWritten(instance, written),
	}, nil
}

// writtenOf names the revisions of a write that changed the keys changed
// (PROTOCOL.md section 20): nil when it changed none, or when their names
// pass api.MaxWrittenKeyBytes.
func writtenOf(subject string, changed []string) *api.Written {
	n := 0
	for _, k := range changed {
		n += len(k)
	}
	if len(changed) == 0 || n > api.MaxWrittenKeyBytes {
		return nil
	}
	return &api.Written{Subject: subject, Keys: changed}
}

// answerWritten is w for a PUT's answer to a client that sent its
// instance, nil for any other: a Claude Code client's answer keeps the
// fields it knows.
func answerWritten(instance string, w *api.Written) *api.Written {
	if instance == "" {
		return nil
	}
	return w
}

// apply stores wr with the server's entry cap and deletion bound, and
// wakes the change waits on its repo when it changed it, but for those of
// the client instance that made it, which it carries to the new checksum
// when wr's precondition was theirs. Every write the server makes goes
// through it: a PUT's, and an approved proposal's. It returns the
// revisions the write made, as PROTOCOL.md section 20 names them.
func (s *Server) apply(ctx context.Context, wr store.Write, instance string) (store.Result, *api.Written, error) {
	wr.MaxEntries, wr.Deletions = s.limits.MaxEntries, s.deletions
	res, err := s.store.Apply(ctx, wr)
	if err != nil {
		return res, nil, applyError(wr.Repo, err)
	}
	savetrace.Mark("server.committed", "")
	written := writtenOf(wr.Subject, res.Changed)
	if len(res.Changed) > 0 {
		s.values.put(wr.Repo, res.Checksum, res.Version, wr.Entries, written)
		s.carryOwnWaits(wr.Repo, wr.Subject, instance, wr.IfMatch, res.Checksum)
		s.waker.Publish(wr.Repo)
	}
	return res, written, nil
}

// lastModified is the repo's last write time, or now for a PUT that changed
// nothing on a repo never written, which has no write time to report.
func lastModified(res store.Result, now time.Time) time.Time {
	if res.LastModified.IsZero() {
		return now
	}
	return res.LastModified.UTC()
}

// readPut decodes the body as it arrives, within the body cap, and stops
// at the first fault: a refused body costs what was read before it. The
// rest of a refused body, still within the cap, is read and dropped so the
// client, still sending, gets the answer rather than a reset connection.
func (s *Server) readPut(w http.ResponseWriter, r *http.Request) (api.PutRequest, error) {
	body := &countingReader{r: http.MaxBytesReader(w, r.Body, s.limits.MaxBodyBytes)}
	req, err := decodePut(body, s.limits)
	if err != nil {
		_, _ = io.Copy(io.Discard, body)
	}
	s.metrics.putBytes.Add(float64(body.n))
	var apiErr *api.Error
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return req, nil
	case errors.As(err, &apiErr):
		return api.PutRequest{}, apiErr
	case errors.As(err, &tooBig):
		return api.PutRequest{}, api.NewError(http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge,
			fmt.Sprintf("request body is over the %d byte limit", tooBig.Limit)).With("max_bytes", tooBig.Limit)
	default:
		return api.PutRequest{}, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "cannot read request body")
	}
}

// scan refuses a PUT in which a value, or the name of a key it writes or
// deletes, holds a secret. The answer names the rules that matched and the
// first refused key, redacted when its name holds the secret; never what
// matched.
func (s *Server) scan(ctx context.Context, req api.PutRequest) error {
	if s.scanner == nil || len(req.Entries)+len(req.SoftDeleteKeys) == 0 {
		return nil
	}
	values, err := s.scanner.ScanEntries(ctx, req.Entries)
	if err != nil {
		return fmt.Errorf("scan entries: %w", err)
	}
	keys := slices.AppendSeq(slices.Clone(req.SoftDeleteKeys), maps.Keys(req.Entries))
	names, err := s.scanner.ScanKeys(ctx, keys)
	if err != nil {
		return fmt.Errorf("scan keys: %w", err)
	}
	if len(values)+len(names) == 0 {
		return nil
	}
	s.metrics.secrets.Inc()
	return secretRefusal(values, names)
}

// secretRefusal is the 422 for the scan's hits on values and on names.
func secretRefusal(values, names map[string][]string) *api.Error {
	var ids, keys []string
	for _, hits := range []map[string][]string{values, names} {
		for k, rules := range hits {
			keys = append(keys, k)
			ids = append(ids, rules...)
		}
	}
	slices.Sort(ids)
	key := slices.Min(keys)
	if _, named := names[key]; named {
		key = api.RedactKey(key)
	}
	return api.NewError(http.StatusUnprocessableEntity, api.CodeSecretDetected,
		"an entry's value or key looks like it holds a secret; nothing was stored").
		With("rule_ids", slices.Compact(ids)).With("key", key)
}

// applyError maps a store error of Apply to the protocol.
func applyError(repo string, err error) error {
	if lerr := laneError(err); lerr != nil {
		return lerr
	}
	var tooMany *store.TooManyEntriesError
	switch {
	case errors.Is(err, store.ErrPrecondition):
		return api.NewError(http.StatusPreconditionFailed, api.CodePrecondition,
			"If-Match does not equal the repo's current checksum; nothing was written")
	case errors.As(err, &tooMany):
		return api.NewError(http.StatusRequestEntityTooLarge, api.CodeTooManyEntries,
			fmt.Sprintf("the repo would hold %d entries, over the limit of %d; nothing was written", tooMany.Received, tooMany.Max)).
			With("max_entries", tooMany.Max).With("received_entries", tooMany.Received)
	default:
		return fmt.Errorf("apply to %s: %w", repo, err)
	}
}
