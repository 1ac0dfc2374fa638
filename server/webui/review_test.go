package webui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// TestReviewApprove follows a write to a repo under review: it becomes a
// proposal the reviewer finds counted on the repos list, listed on the
// review page, shown rendered with its diff, and approves.
func TestReviewApprove(t *testing.T) {
	team := startReviewTeam(t)
	id := propose(t, team.srv, team.alice, "acme/app", map[string]string{
		"deploy.md": "---\nname: Deploy\ndescription: How we ship\n---\n# Deploy\n\nStaging listens on port **9090**.\n",
	})
	if got := entries(t, team.srv, "acme/app")["deploy.md"]; !strings.Contains(got, "8080") {
		t.Fatalf("deploy.md before approval = %q, want the old content", got)
	}
	carol := signedIn(t, team.srv, "carol", grant("acme/app", store.LevelReview))
	if p := carol.get("/ui/"); !strings.Contains(p.body, "1 pending") {
		t.Errorf("repos list = %q, want 1 pending", p.body)
	}
	list := carol.get("/ui/review?repo=acme/app")
	if list.status != http.StatusOK || !strings.Contains(list.body, proposalURL(id)) || !strings.Contains(list.body, "alice") {
		t.Fatalf("review page = %d %q, want proposal %d by alice", list.status, list.body, id)
	}
	if p := carol.get("/ui/note?repo=acme/app&key=deploy.md"); !strings.Contains(p.body, proposalURL(id)) {
		t.Errorf("note page = %q, want a notice linking proposal %d", p.body, id)
	}
	shown := carol.get(proposalURL(id))
	for _, want := range []string{"<strong>9090</strong>", `<span class="add">&#43; Staging listens on port **9090**.</span>`,
		`<span class="remove">- Staging listens on port 8080.</span>`, `id="approve"`, `id="approve-edited"`, `id="reject"`} {
		if !strings.Contains(shown.body, want) {
			t.Errorf("proposal page lacks %q:\n%s", want, shown.body)
		}
	}
	if p := carol.decide("approve", id, nil); p.status != http.StatusOK || !strings.Contains(p.body, `id="decision"`) || !strings.Contains(p.body, "approved") {
		t.Fatalf("approve = %d at %s %q, want the proposal approved", p.status, p.url, p.body)
	}
	if got := entries(t, team.srv, "acme/app")["deploy.md"]; !strings.Contains(got, "9090") {
		t.Errorf("deploy.md after approval = %q, want the proposed content", got)
	}
	if p := proposal(t, team.srv, id); p.State != store.ProposalApproved || p.Reviewer != "carol" {
		t.Errorf("proposal after approval = %s by %q, want approved by carol", p.State, p.Reviewer)
	}
}

// TestReviewGrants checks that without a review grant the review pages
// and the proposals of others answer as a page that is not there, by link
// or guessed address, and that their forms change nothing.
func TestReviewGrants(t *testing.T) {
	team := startReviewTeam(t)
	id := propose(t, team.srv, team.alice, "acme/app", map[string]string{"oncall.md": "Page the secondary first.\n"})
	for name, b := range map[string]*browser{
		"bob (writer)":                 signedIn(t, team.srv, "bob", grant("acme/app", store.LevelWrite)),
		"eve (reader of another repo)": signedIn(t, team.srv, "eve", grant("other/lib", store.LevelRead)),
	} {
		missing := b.get("/ui/repo?repo=nobody/none")
		if missing.status != http.StatusNotFound {
			t.Fatalf("%s: GET a missing repo = %d, want 404", name, missing.status)
		}
		for _, path := range []string{"/ui/review?repo=acme/app", proposalURL(id), "/ui/proposal?id=999", "/ui/proposal?id=x",
			"/ui/review?repo=other/lib"} {
			if p := b.get(path); p.status != missing.status || p.body != missing.body {
				t.Errorf("%s: GET %s = %d %q, want the 404 of a missing page", name, path, p.status, p.body)
			}
		}
		if p := b.get("/ui/"); strings.Contains(p.body, "/ui/review") {
			t.Errorf("%s: repos list links the review page: %q", name, p.body)
		}
		for _, action := range []string{"approve", "reject", "purge", "edit"} {
			form := url.Values{"reason": {"no"}, "confirm": {"1"}, "if_match": {"x"}, "content:oncall.md": {"mine"}}
			if p := b.decide(action, id, form); p.status != missing.status || p.body != missing.body {
				t.Errorf("%s: POST %s = %d %q, want the 404 of a missing page", name, action, p.status, p.body)
			}
		}
	}
	if p := proposal(t, team.srv, id); p.State != store.ProposalPending {
		t.Errorf("proposal after refused forms = %s, want pending", p.State)
	}

	alice := signedIn(t, team.srv, "alice", grant("acme/app", store.LevelWrite))
	own := alice.get(proposalURL(id))
	if own.status != http.StatusOK || strings.Contains(own.body, `id="approve"`) || strings.Contains(own.body, `id="approve-edited"`) {
		t.Errorf("author's view of their proposal = %d %q, want it shown without approval forms", own.status, own.body)
	}
	if p := alice.get("/ui/review?repo=acme/app"); p.status != http.StatusNotFound {
		t.Errorf("author without review grant: GET review = %d, want 404", p.status)
	}
	if p := alice.decide("approve", id, nil); p.status != http.StatusNotFound {
		t.Errorf("author without review grant: POST approve = %d, want 404", p.status)
	}
}

// TestReviewCSRF checks that a decision without the session's
// anti-forgery token is refused and decides nothing.
func TestReviewCSRF(t *testing.T) {
	team := startReviewTeam(t)
	id := propose(t, team.srv, team.alice, "acme/app", map[string]string{"oncall.md": "Page the secondary first.\n"})
	carol := signedIn(t, team.srv, "carol", grant("acme/app", store.LevelReview))
	other := signedIn(t, team.srv, "dave", grant("acme/**", store.LevelReview)).get("/ui/").csrf(t)
	for _, action := range []string{"approve", "reject", "edit"} {
		for name, token := range map[string]string{"none": "", "another session's": other} {
			form := url.Values{"csrf": {token}, "id": {"1"}, "reason": {"no"}, "content:oncall.md": {"x"}}
			if p := carol.post("/ui/proposal/"+action, form); p.status != http.StatusForbidden {
				t.Errorf("POST %s with %s token = %d, want 403", action, name, p.status)
			}
		}
	}
	if p := proposal(t, team.srv, id); p.State != store.ProposalPending {
		t.Errorf("proposal after forged forms = %s, want pending", p.State)
	}
}

// TestReviewFourEyes checks that a reviewer cannot approve their own
// proposal from the view, and another reviewer can.
func TestReviewFourEyes(t *testing.T) {
	team := startReviewTeam(t)
	id := propose(t, team.srv, team.carol, "acme/app", map[string]string{"oncall.md": "Page the secondary first.\n"})
	carol := signedIn(t, team.srv, "carol", grant("acme/app", store.LevelReview))
	if p := carol.get(proposalURL(id)); strings.Contains(p.body, `id="approve"`) || !strings.Contains(p.body, `id="own-note"`) {
		t.Errorf("own proposal page = %q, want no approve button and the note why", p.body)
	}
	for _, action := range []string{"approve", "edit"} {
		p := carol.decide(action, id, url.Values{"if_match": {"x"}, "content:oncall.md": {"mine"}})
		if p.status != http.StatusForbidden || !strings.Contains(p.body, "cannot approve their own proposal") {
			t.Errorf("POST %s of own proposal = %d %q, want 403 saying another reviewer must", action, p.status, p.body)
		}
	}
	if p := proposal(t, team.srv, id); p.State != store.ProposalPending {
		t.Fatalf("own proposal after refused approvals = %s, want pending", p.State)
	}
	dave := signedIn(t, team.srv, "dave", grant("acme/**", store.LevelReview))
	if p := dave.decide("approve", id, nil); p.status != http.StatusOK {
		t.Fatalf("another reviewer's approval = %d %q, want it approved", p.status, p.body)
	}
	if got := entries(t, team.srv, "acme/app")["oncall.md"]; got != "Page the secondary first.\n" {
		t.Errorf("oncall.md after approval = %q, want carol's version", got)
	}
}

// TestReviewConflict approves one of two proposals to the same note: the
// other then shows the conflict, its plain approval is refused naming
// the key, a stale edit is refused keeping the text, and an edit made
// against the repo as it is lands.
func TestReviewConflict(t *testing.T) {
	team := startReviewTeam(t)
	first := propose(t, team.srv, team.alice, "acme/app", map[string]string{"oncall.md": "Page the secondary first.\n"})
	second := propose(t, team.srv, team.bob, "acme/app", map[string]string{"oncall.md": "Page the primary, then the manager.\n"})
	carol := signedIn(t, team.srv, "carol", grant("acme/app", store.LevelReview))
	stale := carol.get(proposalURL(first)).ifMatch(t)
	if p := carol.get("/ui/review?repo=acme/app"); strings.Contains(p.body, "changed on the server since") {
		t.Errorf("review page before any approval = %q, want no conflict marked", p.body)
	}
	if p := carol.decide("approve", second, nil); p.status != http.StatusOK {
		t.Fatalf("approve %d = %d %q", second, p.status, p.body)
	}
	if p := carol.get("/ui/review?repo=acme/app"); !strings.Contains(p.body, "changed on the server since: oncall.md") {
		t.Errorf("review page = %q, want proposal %d marked as conflicting on oncall.md", p.body, first)
	}
	shown := carol.get(proposalURL(first))
	if !strings.Contains(shown.body, `id="conflict"`) || !strings.Contains(shown.body, "<code>oncall.md</code>") || strings.Contains(shown.body, `id="approve"`) {
		t.Errorf("conflicting proposal page = %q, want the conflict on oncall.md and no plain approval", shown.body)
	}
	if !strings.Contains(shown.body, `<span class="remove">- Page the primary, then the manager.</span>`) {
		t.Errorf("conflicting proposal page = %q, want the diff against the server's content now", shown.body)
	}
	p := carol.decide("approve", first, nil)
	if p.status != http.StatusConflict || !strings.Contains(p.body, "older version of oncall.md") || !strings.Contains(p.body, `id="edit-form"`) {
		t.Errorf("plain approval of a conflicting proposal = %d %q, want 409 naming oncall.md with the edit form", p.status, p.body)
	}
	edited := "Page the secondary, then the manager.\n"
	p = carol.decide("edit", first, url.Values{"if_match": {stale}, "content:oncall.md": {strings.ReplaceAll(edited, "\n", "\r\n")}})
	if p.status != http.StatusPreconditionFailed || !strings.Contains(p.body, "Page the secondary, then the manager.") ||
		!strings.Contains(p.body, "changed since this page was shown") {
		t.Errorf("edit against a stale checksum = %d %q, want 412 saying the repo changed, with the edit kept in the form", p.status, p.body)
	}
	p = carol.decide("edit", first, url.Values{"if_match": {shown.ifMatch(t)}, "content:oncall.md": {strings.ReplaceAll(edited, "\n", "\r\n")}})
	if p.status != http.StatusOK || !strings.Contains(p.body, "with the reviewer's edits") {
		t.Fatalf("edit against the current checksum = %d %q, want approved with edits", p.status, p.body)
	}
	if got := entries(t, team.srv, "acme/app")["oncall.md"]; got != edited {
		t.Errorf("oncall.md after the edited approval = %q, want %q", got, edited)
	}
}

// TestReviewSecretInEdit checks that an edit holding a secret is refused
// by the server's scan, the reviewer's text kept, and nothing lands.
func TestReviewSecretInEdit(t *testing.T) {
	team := startReviewTeam(t)
	id := propose(t, team.srv, team.alice, "acme/app", map[string]string{"oncall.md": "Page the secondary first.\n"})
	carol := signedIn(t, team.srv, "carol", grant("acme/app", store.LevelReview))
	check := carol.get(proposalURL(id)).ifMatch(t)
	secret := "Page the secondary first; the pager key is " + reviewMarker + "\n"
	p := carol.decide("edit", id, url.Values{"if_match": {check}, "content:oncall.md": {secret}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `id="error"`) || !strings.Contains(p.body, "the pager key is") {
		t.Errorf("edit with a secret = %d %q, want 422 with the edit kept in the form", p.status, p.body)
	}
	if got := entries(t, team.srv, "acme/app")["oncall.md"]; got != "Page the primary first.\n" {
		t.Errorf("oncall.md after the refused edit = %q, want it unchanged", got)
	}
	if got := proposal(t, team.srv, id); got.State != store.ProposalPending {
		t.Errorf("proposal after the refused edit = %s, want pending", got.State)
	}
}

// TestReviewRejectAndPurge rejects a proposal: without a reason it is
// refused, with one the author sees it on their list and the proposal's
// page; then the reviewer purges its content.
func TestReviewRejectAndPurge(t *testing.T) {
	team := startReviewTeam(t)
	id := propose(t, team.srv, team.alice, "acme/app", map[string]string{"deploy.md": "Staging listens on port 8081.\n"})
	carol := signedIn(t, team.srv, "carol", grant("acme/app", store.LevelReview))
	if p := carol.decide("reject", id, url.Values{"reason": {"  "}}); p.status != http.StatusBadRequest || !strings.Contains(p.body, "give a reason") {
		t.Errorf("reject without a reason = %d %q, want 400 asking for one", p.status, p.body)
	}
	if p := carol.decide("purge", id, url.Values{"confirm": {"1"}}); p.status != http.StatusConflict {
		t.Errorf("purge of a pending proposal = %d, want 409", p.status)
	}
	reason := "the staging port is 9090, not 8081"
	if p := carol.decide("reject", id, url.Values{"reason": {reason}}); p.status != http.StatusOK || !strings.Contains(p.body, reason) {
		t.Fatalf("reject = %d %q, want the proposal rejected with the reason", p.status, p.body)
	}

	alice := signedIn(t, team.srv, "alice", grant("acme/app", store.LevelWrite))
	if p := alice.get("/ui/"); !strings.Contains(p.body, "1 rejected") {
		t.Errorf("alice's repos list = %q, want 1 rejected", p.body)
	}
	if p := alice.get("/ui/proposals?repo=acme/app"); !strings.Contains(p.body, reason) || !strings.Contains(p.body, proposalURL(id)) {
		t.Errorf("alice's proposals = %q, want proposal %d with the reason", p.body, id)
	}
	if p := alice.get(proposalURL(id)); !strings.Contains(p.body, reason) || !strings.Contains(p.body, "Staging listens on port 8081.") {
		t.Errorf("alice's view of the rejected proposal = %q, want the reason and the content", p.body)
	}

	if p := carol.decide("purge", id, nil); p.status != http.StatusBadRequest {
		t.Errorf("purge without confirming = %d, want 400", p.status)
	}
	p := carol.decide("purge", id, url.Values{"confirm": {"1"}})
	if p.status != http.StatusOK || !strings.Contains(p.body, `id="purged"`) || strings.Contains(p.body, "Staging listens on port 8081.") {
		t.Errorf("purge = %d %q, want the content gone and the purge shown", p.status, p.body)
	}
	if got := proposal(t, team.srv, id); len(got.Entries) != 0 || got.PurgedBy != "carol" {
		t.Errorf("proposal after purge holds %v, purged by %q; want no content, purged by carol", got.Entries, got.PurgedBy)
	}
}

// TestRestoreUnderReviewProposes checks that a restore in the view of a
// repo under review is a proposal, as the API's PUT is, and lands nothing.
func TestRestoreUnderReviewProposes(t *testing.T) {
	team := startReviewTeam(t)
	seed(t, team.srv, "acme/app", map[string]string{"oncall.md": "Page anyone.\n"})
	alice := signedIn(t, team.srv, "alice", grant("acme/app", store.LevelWrite))
	form := url.Values{"csrf": {alice.get("/ui/").csrf(t)}, "repo": {"acme/app"}, "key": {"oncall.md"}, "version": {"1"}}
	p := alice.post("/ui/restore", form)
	if p.status != http.StatusOK || !strings.Contains(p.url, "/ui/proposal?id=") || !strings.Contains(p.body, "Page the primary first.") {
		t.Fatalf("restore under review = %d at %s %q, want the proposal's page", p.status, p.url, p.body)
	}
	if got := entries(t, team.srv, "acme/app")["oncall.md"]; got != "Page anyone.\n" {
		t.Errorf("oncall.md after a restore under review = %q, want it unchanged until approved", got)
	}
}

// A repo under review whose first write still waits for a reviewer holds
// no note, yet its reviewer finds it in the repos list and its page opens;
// a person without a grant on it still sees nothing of it.
func TestReviewNewRepoListed(t *testing.T) {
	srv := startServer(t, servertest.WithConfig(func(c *server.Config) {
		c.Repos = []server.RepoConfig{{Name: "acme/fresh", Review: server.ReviewRequired}}
	}))
	seed(t, srv, "other/lib", map[string]string{"a.md": "other notes"})
	alice := srv.CreateToken(t, "alice", grant("acme/fresh", store.LevelWrite))
	propose(t, srv, alice, "acme/fresh", map[string]string{"MEMORY.md": "# Fresh\n"})
	carol := signedIn(t, srv, "carol", grant("acme/fresh", store.LevelReview))
	if p := carol.get("/ui/"); !strings.Contains(p.body, "acme/fresh") || !strings.Contains(p.body, "1 pending") {
		t.Errorf("repos list = %q, want acme/fresh with 1 pending", p.body)
	}
	if p := carol.get("/ui/repo?repo=acme/fresh"); p.status != http.StatusOK {
		t.Errorf("page of the repo whose first write waits = %d %q, want 200", p.status, p.body)
	}
	eve := signedIn(t, srv, "eve", grant("other/lib", store.LevelRead))
	if p := eve.get("/ui/"); strings.Contains(p.body, "acme/fresh") {
		t.Errorf("repos list of a person without a grant names acme/fresh: %q", p.body)
	}
}

// TestReviewSecretInReason: a rejection reason holding a secret is refused
// naming the rule, and the page does not send the reason back.
func TestReviewSecretInReason(t *testing.T) {
	team := startReviewTeam(t)
	id := propose(t, team.srv, team.alice, "acme/app", map[string]string{"oncall.md": "Page the secondary first.\n"})
	carol := signedIn(t, team.srv, "carol", grant("acme/app", store.LevelReview))
	p := carol.decide("reject", id, url.Values{"reason": {"use the key " + reviewMarker}})
	if p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "holds a secret (rule ") || strings.Contains(p.body, reviewMarker) {
		t.Errorf("reject with a secret in the reason = %d %q, want 422 naming the rule, without the reason", p.status, p.body)
	}
	if got := proposal(t, team.srv, id); got.State != store.ProposalPending {
		t.Errorf("proposal after the refused rejection = %s, want pending", got.State)
	}
}
