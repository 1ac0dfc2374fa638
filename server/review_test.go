package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// reviewed is a server on which acme/app is under review, with the tokens
// of two writers, a reviewer and a reader.
type reviewed struct {
	*servertest.Server
	alice, bob, carol, dave string
}

const secretMarker = "SECRET-MARKER-1234"

func startReviewed(t *testing.T) reviewed {
	t.Helper()
	return startReviewedWith(t, servertest.MarkerScanner(secretMarker))
}

// startReviewedWith is startReviewed with the secret scanner sc and
// more options.
func startReviewedWith(t *testing.T, sc server.EntryScanner, opts ...servertest.Option) reviewed {
	t.Helper()
	s := servertest.Start(t, append([]servertest.Option{servertest.WithScanner(sc),
		servertest.WithConfig(func(c *server.Config) {
			c.Repos = []server.RepoConfig{{Name: "acme/*", Review: server.ReviewRequired}, {Name: "acme/open", Review: server.ReviewOff}}
		})}, opts...)...)
	grant := func(level store.Level) store.Grant { return store.Grant{Pattern: "acme/**", Level: level} }
	return reviewed{
		Server: s,
		alice:  s.CreateToken(t, "alice", grant(store.LevelWrite)),
		bob:    s.CreateToken(t, "bob", grant(store.LevelWrite)),
		carol:  s.CreateToken(t, "carol", grant(store.LevelReview)),
		dave:   s.CreateToken(t, "dave", grant(store.LevelRead)),
	}
}

// propose PUTs entries as token and returns the answer, which must be a
// 200 holding a proposal.
func (s reviewed) propose(t *testing.T, token string, entries map[string]string, deletes ...string) api.PutResponse {
	t.Helper()
	r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: token, body: putBody(t, entries, deletes...)})
	var pr api.PutResponse
	decode(t, r, &pr)
	if r.status != http.StatusOK || pr.Review == nil || r.header.Get(api.ProposalHeader) != fmt.Sprint(pr.Review.Proposal) {
		t.Fatalf("PUT on a reviewed repo = %d %s (header %q), want 200 with a proposal", r.status, r.body, r.header.Get(api.ProposalHeader))
	}
	return pr
}

// decision POSTs action on proposal id as token with body.
func (s reviewed) decision(t *testing.T, token string, id int64, action, body string) reply {
	t.Helper()
	return do(t, s.URL, req{method: http.MethodPost, path: fmt.Sprintf("%s/%d/%s", api.ProposalsPath, id, action), token: token, body: body})
}

func (s reviewed) show(t *testing.T, token string, id int64) api.ProposalResponse {
	t.Helper()
	r := do(t, s.URL, req{path: fmt.Sprintf("%s/%d", api.ProposalsPath, id), token: token})
	if r.status != http.StatusOK {
		t.Fatalf("GET proposal %d = %d %s, want 200", id, r.status, r.body)
	}
	var out api.ProposalResponse
	decode(t, r, &out)
	return out
}

func (s reviewed) list(t *testing.T, token, query string) []api.Proposal {
	t.Helper()
	r := do(t, s.URL, req{path: api.ProposalsPath, query: memQuery(repo) + query, token: token})
	if r.status != http.StatusOK {
		t.Fatalf("GET proposals%s = %d %s, want 200", query, r.status, r.body)
	}
	var out api.ProposalsResponse
	decode(t, r, &out)
	return out.Proposals
}

func (s reviewed) entries(t *testing.T) map[string]string {
	t.Helper()
	r := do(t, s.URL, req{repo: repo, token: s.dave})
	if r.status == http.StatusNotFound {
		return map[string]string{}
	}
	var full api.FullResponse
	decode(t, r, &full)
	return full.Content.Entries
}

func TestReviewPutIsProposal(t *testing.T) {
	s := startReviewed(t)
	pr := s.propose(t, s.alice, map[string]string{"deploy.md": "port 8080"})
	if pr.Checksum != api.EmptyRepoChecksum || pr.Version != 0 || !slices.Equal(pr.Review.Keys, []string{"deploy.md"}) || pr.Review.State != api.ProposalPending {
		t.Errorf("PUT answer = %+v %+v, want the unchanged empty repo and the proposal of deploy.md", pr, pr.Review)
	}
	if r := do(t, s.URL, req{repo: repo, token: s.dave}); r.status != http.StatusNotFound {
		t.Errorf("GET after a proposal to a new repo = %d, want 404: nothing was stored", r.status)
	}
	if r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.dave, body: putBody(t, map[string]string{"a.md": "a"})}); r.status != http.StatusForbidden {
		t.Errorf("PUT by a reader = %d, want 403", r.status)
	}
	if got := s.list(t, s.carol, ""); len(got) != 1 || got[0].Subject != "alice" || got[0].Entries != nil {
		t.Errorf("reviewer's list = %+v, want alice's proposal without content", got)
	}
	if got := s.list(t, s.bob, ""); len(got) != 0 {
		t.Errorf("another writer's list = %+v, want only their own: none", got)
	}
	if r := do(t, s.URL, req{path: fmt.Sprintf("%s/%d", api.ProposalsPath, pr.Review.Proposal), token: s.bob}); r.status != http.StatusForbidden {
		t.Errorf("GET another's proposal as a writer = %d, want 403", r.status)
	}
	if got := s.show(t, s.alice, pr.Review.Proposal); got.Proposal.Entries["deploy.md"] != "port 8080" {
		t.Errorf("author's show = %+v, want the content", got.Proposal)
	}
	if again := s.propose(t, s.alice, map[string]string{"deploy.md": "port 8080"}); again.Review.Proposal == pr.Review.Proposal {
		t.Errorf("a second PUT made no new proposal")
	}
	open := do(t, s.URL, req{method: http.MethodPut, repo: "acme/open", token: s.alice, body: putBody(t, map[string]string{"a.md": "a"})})
	var direct api.PutResponse
	decode(t, open, &direct)
	if open.status != http.StatusOK || direct.Review != nil || direct.Version != 1 {
		t.Errorf("PUT on a repo with review off = %d %+v, want stored at version 1", open.status, direct)
	}
}

func TestReviewApprove(t *testing.T) {
	s := startReviewed(t)
	id := s.propose(t, s.alice, map[string]string{"deploy.md": "port 8080"}).Review.Proposal
	for _, tc := range []struct {
		token string
		want  int
	}{{s.bob, http.StatusForbidden}, {s.alice, http.StatusForbidden}, {s.dave, http.StatusForbidden}} {
		if r := s.decision(t, tc.token, id, "approve", ""); r.status != tc.want {
			t.Errorf("approve by a non-reviewer = %d %s, want %d", r.status, r.body, tc.want)
		}
	}
	own := s.propose(t, s.carol, map[string]string{"own.md": "mine"}).Review.Proposal
	if r := s.decision(t, s.carol, own, "approve", ""); r.status != http.StatusForbidden {
		t.Errorf("a reviewer approving their own proposal = %d, want 403", r.status)
	}
	r := s.decision(t, s.carol, id, "approve", "")
	var out api.ProposalResponse
	decode(t, r, &out)
	if r.status != http.StatusOK || out.Proposal.State != api.ProposalApproved || out.Proposal.Reviewer != "carol" || out.Proposal.Version != 1 {
		t.Fatalf("approve = %d %+v, want approved by carol at version 1", r.status, out.Proposal)
	}
	if got := s.entries(t); got["deploy.md"] != "port 8080" {
		t.Errorf("GET after approval = %v, want deploy.md", got)
	}
	h := do(t, s.URL, req{path: api.HistoryPath, query: memQuery(repo, "key", "deploy.md"), token: s.dave})
	var hist api.HistoryResponse
	decode(t, h, &hist)
	if len(hist.Revisions) != 1 || hist.Revisions[0].Subject != "alice" {
		t.Errorf("history after approval = %+v, want one revision by the author", hist.Revisions)
	}
	if r := s.decision(t, s.carol, id, "approve", ""); r.status != http.StatusConflict || r.errorCode() != api.CodeProposalDecided {
		t.Errorf("approve twice = %d %q, want 409 %q", r.status, r.errorCode(), api.CodeProposalDecided)
	}
	if r := s.decision(t, s.carol, 999, "approve", ""); r.status != http.StatusNotFound || r.errorCode() != api.CodeProposalNotFound {
		t.Errorf("approve of no proposal = %d %q, want 404", r.status, r.errorCode())
	}
}

func TestReviewRejectAndPurge(t *testing.T) {
	s := startReviewed(t)
	id := s.propose(t, s.alice, map[string]string{"deploy.md": "port 8080"}).Review.Proposal
	if r := s.decision(t, s.carol, id, "reject", `{"reason":" "}`); r.status != http.StatusBadRequest {
		t.Errorf("reject without a reason = %d, want 400", r.status)
	}
	if r := s.decision(t, s.carol, id, "purge", ""); r.status != http.StatusConflict {
		t.Errorf("purge of a pending proposal = %d, want 409", r.status)
	}
	if r := s.decision(t, s.bob, id, "reject", `{"reason":"no"}`); r.status != http.StatusForbidden {
		t.Errorf("reject by another writer = %d, want 403", r.status)
	}
	if r := s.decision(t, s.carol, id, "reject", `{"reason":"we moved to 9090"}`); r.status != http.StatusOK {
		t.Fatalf("reject = %d %s, want 200", r.status, r.body)
	}
	mine := s.list(t, s.alice, "&state=rejected")
	if len(mine) != 1 || mine[0].Reason != "we moved to 9090" || mine[0].Reviewer != "carol" {
		t.Errorf("author's list of rejected = %+v, want the reason", mine)
	}
	if got := s.entries(t); len(got) != 0 {
		t.Errorf("GET after a rejection = %v, want nothing stored", got)
	}
	if r := s.decision(t, s.carol, id, "approve", ""); r.status != http.StatusConflict {
		t.Errorf("approve after reject = %d, want 409", r.status)
	}
	if r := s.decision(t, s.alice, id, "purge", ""); r.status != http.StatusForbidden {
		t.Errorf("purge by the author = %d, want 403", r.status)
	}
	if r := s.decision(t, s.carol, id, "purge", ""); r.status != http.StatusOK {
		t.Fatalf("purge = %d %s, want 200", r.status, r.body)
	}
	if got := s.show(t, s.carol, id).Proposal; got.Entries != nil || got.PurgedBy != "carol" {
		t.Errorf("show after purge = %+v, want no content, purged by carol", got)
	}
	withdrawn := s.propose(t, s.bob, map[string]string{"b.md": "b"}).Review.Proposal
	if r := s.decision(t, s.bob, withdrawn, "reject", `{"reason":"withdrawn"}`); r.status != http.StatusOK {
		t.Errorf("the author withdrawing = %d %s, want 200", r.status, r.body)
	}
}

func TestReviewBaseChanged(t *testing.T) {
	s := startReviewed(t)
	first := s.propose(t, s.alice, map[string]string{"deploy.md": "port 8080", "other.md": "o"}).Review.Proposal
	second := s.propose(t, s.bob, map[string]string{"deploy.md": "port 9090"}).Review.Proposal
	if r := s.decision(t, s.carol, second, "approve", ""); r.status != http.StatusOK {
		t.Fatalf("approve = %d %s", r.status, r.body)
	}
	r := s.decision(t, s.carol, first, "approve", "")
	if r.status != http.StatusConflict || r.errorCode() != api.CodeProposalConflict {
		t.Fatalf("approve against a changed base = %d %s, want 409 %q", r.status, r.body, api.CodeProposalConflict)
	}
	if keys, _ := r.apiError().Details["keys"].([]any); len(keys) != 1 || keys[0] != "deploy.md" {
		t.Errorf("conflict keys = %v, want [deploy.md]", r.apiError().Details["keys"])
	}
	shown := s.show(t, s.carol, first)
	if !slices.Equal(shown.Proposal.Conflicts, []string{"deploy.md"}) || shown.Current["deploy.md"] != "port 9090" {
		t.Errorf("show = %+v current %v, want the conflict and the current content", shown.Proposal, shown.Current)
	}
	edit := func(ifMatch string, entries map[string]string) string {
		b, _ := json.Marshal(api.ApproveRequest{IfMatch: ifMatch, Entries: entries})
		return string(b)
	}
	if r := s.decision(t, s.carol, first, "approve", edit(api.EmptyRepoChecksum, map[string]string{"deploy.md": "x"})); r.status != http.StatusPreconditionFailed {
		t.Errorf("edited approval on a stale checksum = %d, want 412", r.status)
	}
	if r := s.decision(t, s.carol, first, "approve", edit(shown.Checksum, map[string]string{"new.md": "x"})); r.status != http.StatusBadRequest {
		t.Errorf("edited approval of a key not proposed = %d, want 400", r.status)
	}
	if r := s.decision(t, s.carol, first, "approve", edit(shown.Checksum, map[string]string{"deploy.md": "port 9090, and " + secretMarker})); r.status != http.StatusUnprocessableEntity {
		t.Errorf("edited approval holding a secret = %d, want 422", r.status)
	}
	r = s.decision(t, s.carol, first, "approve", edit(shown.Checksum, map[string]string{"deploy.md": "port 9090 since Monday"}))
	if r.status != http.StatusOK {
		t.Fatalf("edited approval = %d %s, want 200", r.status, r.body)
	}
	if got := s.entries(t); got["deploy.md"] != "port 9090 since Monday" || got["other.md"] != "o" {
		t.Errorf("GET after edited approval = %v, want the edit and the rest of the proposal", got)
	}
	if got := s.show(t, s.carol, first).Proposal; !got.Edited || got.State != api.ProposalApproved {
		t.Errorf("after edited approval = %+v, want approved, edited", got)
	}
}

func TestReviewRefusesLikePut(t *testing.T) {
	s := startReviewed(t)
	r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.alice, body: putBody(t, map[string]string{"k.md": "key " + secretMarker})})
	if r.status != http.StatusUnprocessableEntity || r.errorCode() != api.CodeSecretDetected {
		t.Errorf("PUT of a secret on a reviewed repo = %d %q, want 422", r.status, r.errorCode())
	}
	r = do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.alice, body: putBody(t, map[string]string{"a.md": "a"}),
		headers: map[string]string{"If-Match": `"sha256:0000000000000000000000000000000000000000000000000000000000000000"`}})
	if r.status != http.StatusPreconditionFailed {
		t.Errorf("PUT with a stale If-Match on a reviewed repo = %d, want 412", r.status)
	}
	if got := s.list(t, s.carol, "&state=all"); len(got) != 0 {
		t.Errorf("proposals after refused PUTs = %+v, want none", got)
	}
	id := s.propose(t, s.alice, map[string]string{"a.md": "a"}).Review.Proposal
	s.decision(t, s.carol, id, "approve", "")
	nothing := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.alice, body: putBody(t, map[string]string{"a.md": "a"})})
	var pr api.PutResponse
	decode(t, nothing, &pr)
	if nothing.status != http.StatusOK || pr.Review != nil || pr.Version != 1 {
		t.Errorf("PUT that changes nothing = %d %+v, want 200 and no proposal", nothing.status, pr)
	}
}

// TestReviewWake holds a reviewer's wait for proposals and sees it answer
// with the proposal a write makes.
func TestReviewWake(t *testing.T) {
	s := startReviewed(t)
	done := make(chan reply, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		done <- doCtx(t, ctx, s.URL, req{path: api.ProposalsPath, query: memQuery(repo, "wait", "60", "after", "0"), token: s.carol})
	}()
	awaitWaiters(t, s.Server, 1)
	id := s.propose(t, s.alice, map[string]string{"a.md": "a"}).Review.Proposal
	r := <-done
	var out api.ProposalsResponse
	decode(t, r, &out)
	if r.status != http.StatusOK || len(out.Proposals) != 1 || out.Proposals[0].ID != id {
		t.Errorf("woken wait = %d %+v, want the new proposal %d", r.status, out.Proposals, id)
	}
}

// TestReviewSupersedes withdraws an author's older pending proposal once
// a newer one of theirs holds every one of its keys, and no other.
func TestReviewSupersedes(t *testing.T) {
	s := startReviewed(t)
	first := s.propose(t, s.alice, map[string]string{"a.md": "a1", "b.md": "b1"}).Review.Proposal
	narrower := s.propose(t, s.alice, map[string]string{"a.md": "a2"}).Review.Proposal
	others := s.propose(t, s.bob, map[string]string{"a.md": "bob's", "b.md": "bob's"}).Review.Proposal
	pending := func() []int64 {
		var ids []int64
		for _, p := range s.list(t, s.carol, "") {
			ids = append(ids, p.ID)
		}
		return ids
	}
	if got := pending(); !slices.Equal(got, []int64{first, narrower, others}) {
		t.Fatalf("pending = %v, want all three: none holds every key of another by the same author", got)
	}
	latest := s.propose(t, s.alice, map[string]string{"a.md": "a3", "b.md": "b3"}).Review.Proposal
	if got := pending(); !slices.Equal(got, []int64{others, latest}) {
		t.Errorf("pending after alice's latest = %v, want bob's and alice's latest only", got)
	}
	if got := s.show(t, s.carol, first).Proposal; got.State != api.ProposalRejected || got.Reviewer != "alice" || got.Reason != fmt.Sprintf("superseded by proposal %d", latest) {
		t.Errorf("superseded proposal = %+v, want rejected by its author, naming the new one", got)
	}
}
