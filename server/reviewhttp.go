package server

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// serveProposals lists a repo's proposals (extension): pending ones by
// default, or state=approved, rejected or all. With wait=N and after=ID
// it answers once a proposal with a larger id is listed, or after N
// seconds with the list as it is.
func (s *Server) serveProposals(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	q, repo, err := s.repoQuery(r)
	if err != nil {
		return err
	}
	pq := store.ProposalQuery{Repo: repo, State: store.ProposalPending}
	switch st := q.Get(api.ParamState); st {
	case "", api.ProposalPending:
	case "all":
		pq.State = ""
	case api.ProposalApproved, api.ProposalRejected:
		pq.State = store.ProposalState(st)
	default:
		return api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "state must be pending, approved, rejected or all")
	}
	wait, after, err := s.proposalWait(q.Get(api.ParamWait), q.Get(api.ParamAfter))
	if err != nil {
		return err
	}
	list, err := s.Proposals(r.Context(), p, pq)
	if err != nil {
		return err
	}
	if wait > 0 && !arrived(list, after) {
		if list, err = s.waitProposals(w, r, p, pq, after, wait); err != nil {
			return err
		}
	}
	out := api.ProposalsResponse{Repo: repo, Proposals: make([]api.Proposal, len(list))}
	for i, prop := range list {
		out.Proposals[i] = wireProposal(ProposalView{Proposal: prop})
	}
	s.writeJSON(w, http.StatusOK, out)
	return nil
}

// proposalWait parses wait and after.
func (s *Server) proposalWait(rawWait, rawAfter string) (time.Duration, int64, error) {
	if rawWait == "" {
		return 0, 0, nil
	}
	n, err := strconv.ParseUint(rawWait, 10, 32)
	if err != nil {
		return 0, 0, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "wait must be a whole number of seconds")
	}
	after, err := strconv.ParseInt(cmp.Or(rawAfter, "0"), 10, 64)
	if err != nil || after < 0 {
		return 0, 0, api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "after must be a proposal id")
	}
	return min(time.Duration(n)*time.Second, s.limits.MaxWait), after, nil
}

// arrived reports whether list holds a proposal with an id above after.
func arrived(list []store.Proposal, after int64) bool {
	return len(list) > 0 && list[len(list)-1].ID > after
}

// waitProposals holds the request, within the subject's change-wait
// slots, until a proposal with an id above after is listed or wait
// passes, and returns the list then. Its credential is checked again
// after each wake and before the answer, as a change wait's is
// (stillAdmitted).
func (s *Server) waitProposals(w http.ResponseWriter, r *http.Request, p auth.Principal, q store.ProposalQuery, after int64, wait time.Duration) ([]store.Proposal, error) {
	if err := s.takeWaitSlot(w, p.Subject); err != nil {
		return nil, err
	}
	s.metrics.waiters.Inc()
	defer func() {
		s.waitSlots.release(p.Subject)
		s.metrics.waiters.Dec()
	}()
	timer := time.NewTimer(wait + jitter(wait))
	defer timer.Stop()
	bearer, _ := bearerToken(r.Header.Get("Authorization"))
	for {
		changed, release := s.waker.Subscribe(store.ReviewWakeKey(q.Repo))
		list, err := s.Proposals(r.Context(), p, q)
		if err != nil || arrived(list, after) {
			release()
			return list, err
		}
		select {
		case <-changed:
			release()
			if p, err = s.authenticate(r.Context(), w, bearer, q.Repo); err != nil {
				return nil, err
			}
		case <-timer.C:
			release()
			if err := s.stillAdmitted(r.Context(), w, bearer, q.Repo); err != nil {
				return nil, err
			}
			return list, nil
		case <-s.stopping:
			release()
			return nil, unavailable(w, "server is shutting down", time.Second)
		case <-r.Context().Done():
			release()
			return nil, fmt.Errorf("proposal wait: %w", r.Context().Err())
		}
	}
}

// serveProposal answers ProposalsPath/<id> (GET: show) and
// ProposalsPath/<id>/<action> (POST: approve, reject, purge).
func (s *Server) serveProposal(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	rest := strings.TrimPrefix(r.URL.Path, api.ProposalsPath+"/")
	idText, action, _ := strings.Cut(rest, "/")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return api.NewError(http.StatusNotFound, api.CodeInvalidRequest, "no such route: want "+api.ProposalsPath+"/<id>")
	}
	var v ProposalView
	switch {
	case action == "" && r.Method == http.MethodGet:
		v, err = s.ShowProposal(r.Context(), p, id)
	case action == "approve" && r.Method == http.MethodPost:
		var req api.ApproveRequest
		if err := s.readReviewBody(w, r, &req); err != nil {
			return err
		}
		v, err = s.Approve(r.Context(), p, id, req)
	case action == "reject" && r.Method == http.MethodPost:
		var req api.RejectRequest
		if err := s.readReviewBody(w, r, &req); err != nil {
			return err
		}
		v, err = s.Reject(r.Context(), p, id, req.Reason)
	case action == "purge" && r.Method == http.MethodPost:
		v, err = s.PurgeProposal(r.Context(), p, id)
	case action == "" || action == "approve" || action == "reject" || action == "purge":
		return api.NewError(http.StatusMethodNotAllowed, api.CodeInvalidRequest,
			fmt.Sprintf("method %s is not allowed: GET shows a proposal, POST approves, rejects or purges it", r.Method))
	default:
		return api.NewError(http.StatusNotFound, api.CodeInvalidRequest, "no such route: the actions are approve, reject and purge")
	}
	if err != nil {
		return err
	}
	s.logRepo(r.Context(), v.Proposal.Repo)
	s.writeJSON(w, http.StatusOK, api.ProposalResponse{Proposal: wireProposal(v), Checksum: v.Checksum, Current: v.Current})
	return nil
}

// readReviewBody decodes a decision's JSON body into v; an empty body
// leaves v as it is.
func (s *Server) readReviewBody(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.limits.MaxBodyBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return api.NewError(http.StatusRequestEntityTooLarge, api.CodeBodyTooLarge,
			fmt.Sprintf("request body is over the %d byte limit", tooBig.Limit)).With("max_bytes", tooBig.Limit)
	case err != nil:
		return api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "cannot read request body")
	case len(strings.TrimSpace(string(body))) == 0:
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "request body is not the JSON object this route takes")
	}
	return nil
}

// wireProposal is v as the review routes send it.
func wireProposal(v ProposalView) api.Proposal {
	prop := v.Proposal
	out := api.Proposal{
		ID: prop.ID, Repo: prop.Repo, Subject: prop.Subject, Time: prop.Time, State: string(prop.State),
		Keys: prop.Keys(), Base: prop.Base, Entries: prop.Entries, Deletes: prop.Deletes,
		Reviewer: prop.Reviewer, Reason: prop.Reason, Version: prop.Version, Edited: prop.Edited,
		PurgedBy: prop.PurgedBy, Conflicts: v.Conflicts,
	}
	if !prop.Decided.IsZero() {
		out.Decided = &prop.Decided
	}
	if !prop.Purged.IsZero() {
		out.Purged = &prop.Purged
	}
	return out
}
