package memsync

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// reviewTeam is a server holding testRepo under review, two writers'
// machines and a reviewer's client.
type reviewTeam struct {
	srv        *servertest.Server
	alice, bob *peer
	carol      *Client
}

func newReviewTeam(t *testing.T) reviewTeam {
	t.Helper()
	srv := servertest.Start(t, servertest.WithConfig(func(c *server.Config) {
		c.Repos = []server.RepoConfig{{Name: testRepo, Review: server.ReviewRequired}}
	}))
	writer := store.Grant{Pattern: "acme/**", Level: store.LevelWrite}
	return reviewTeam{
		srv:   srv,
		alice: newPeer(t, srv.URL, srv.CreateToken(t, "alice", writer), nil),
		bob:   newPeer(t, srv.URL, srv.CreateToken(t, "bob", writer), nil),
		carol: testClient(t, srv.URL, srv.CreateToken(t, "carol", store.Grant{Pattern: "acme/**", Level: store.LevelReview})),
	}
}

// proposal returns the review note of key in rep, failing without one.
func proposal(t *testing.T, rep Report, key string) ReviewNote {
	t.Helper()
	for _, n := range rep.Review {
		if n.Key == key {
			return n
		}
	}
	t.Fatalf("report %+v has no review note of %s", rep.Review, key)
	return ReviewNote{}
}

func (rt reviewTeam) approve(t *testing.T, id int64, req api.ApproveRequest) {
	t.Helper()
	if _, err := rt.carol.Approve(context.Background(), id, req); err != nil {
		t.Fatalf("Approve(%d): %v", id, err)
	}
}

func TestReviewProposedThenApproved(t *testing.T) {
	rt := newReviewTeam(t)
	rt.alice.write(t, "deploy.md", "port 8080\n")
	rep := rt.alice.sync(t)
	n := proposal(t, rep, "deploy.md")
	if len(rep.Pushed) != 0 || len(rep.Proposed) != 1 || n.State != ReviewPending {
		t.Fatalf("first sync = pushed %v, proposed %v, note %+v, want deploy.md proposed and pending", rep.Pushed, rep.Proposed, n)
	}
	if got := serverEntries(t, rt.srv); len(got) != 0 {
		t.Errorf("server after a proposal = %v, want nothing stored", got)
	}
	if again := rt.alice.sync(t); again.PUTs != 0 || len(again.Review) != 1 {
		t.Errorf("sync while pending = %d PUTs, notes %+v, want none sent and the note kept", again.PUTs, again.Review)
	}
	if unsent, err := rt.alice.eng.Unsent(); err != nil || len(unsent) != 0 {
		t.Errorf("Unsent() while pending = %v, %v, want nothing", unsent, err)
	}
	shared, err := SharedNotes(Config{Dir: rt.alice.dir, Repo: testRepo, Server: rt.srv.URL, StateDir: rt.alice.state})
	if err != nil || shared.PendingReview != 1 {
		t.Errorf("SharedNotes() while pending = %+v, %v, want 1 change pending review", shared, err)
	}
	rt.bob.sync(t)
	if got := rt.bob.read(t, "deploy.md"); got != "<missing>" {
		t.Errorf("bob before approval reads %q, want nothing", got)
	}
	rt.approve(t, n.Proposal, api.ApproveRequest{})
	rt.bob.sync(t)
	if got := rt.bob.read(t, "deploy.md"); got != "port 8080\n" {
		t.Errorf("bob after approval reads %q, want the note", got)
	}
	rep = rt.alice.sync(t)
	if len(rep.Review) != 0 || len(rep.Conflicts) != 0 || rt.alice.read(t, "deploy.md") != "port 8080\n" {
		t.Errorf("alice after approval: notes %+v, conflicts %+v, file %q, want settled", rep.Review, rep.Conflicts, rt.alice.read(t, "deploy.md"))
	}
}

func TestReviewRejectedKeepsLocalEdit(t *testing.T) {
	rt := newReviewTeam(t)
	rt.alice.write(t, "deploy.md", "port 8080\n")
	rt.approve(t, proposal(t, rt.alice.sync(t), "deploy.md").Proposal, api.ApproveRequest{})
	rt.alice.sync(t)
	rt.bob.sync(t)

	rt.alice.write(t, "deploy.md", "port 9999\n")
	id := proposal(t, rt.alice.sync(t), "deploy.md").Proposal
	if _, err := rt.carol.Reject(context.Background(), id, "we never use 9999"); err != nil {
		t.Fatal(err)
	}
	rep := rt.alice.sync(t)
	n := proposal(t, rep, "deploy.md")
	if n.State != ReviewRejected || n.Reason != "we never use 9999" || n.Reviewer != "carol" || rep.PUTs != 0 {
		t.Errorf("alice after rejection: note %+v, %d PUTs, want rejected by carol with the reason, nothing sent", n, rep.PUTs)
	}
	if got := rt.alice.read(t, "deploy.md"); got != "port 9999\n" {
		t.Errorf("alice's file after rejection = %q, want her edit kept", got)
	}
	rt.bob.sync(t)
	if got := rt.bob.read(t, "deploy.md"); got != "port 8080\n" {
		t.Errorf("bob after rejection reads %q, want the approved note", got)
	}
	rt.alice.write(t, "deploy.md", "port 9090\n")
	if n := proposal(t, rt.alice.sync(t), "deploy.md"); n.State != ReviewPending || n.Proposal == id {
		t.Errorf("an edit after rejection: note %+v, want a new pending proposal", n)
	}
	rt.alice.write(t, "deploy.md", "port 8080\n")
	if rep := rt.alice.sync(t); len(rep.Review) != 0 || rep.PUTs != 0 {
		t.Errorf("back to the team's copy: notes %+v, %d PUTs, want no note and nothing sent", rep.Review, rep.PUTs)
	}
}

func TestReviewEditedApprovalKeepsAuthorsCopy(t *testing.T) {
	rt := newReviewTeam(t)
	rt.alice.write(t, "deploy.md", "port 8080\n")
	id := proposal(t, rt.alice.sync(t), "deploy.md").Proposal
	shown, err := rt.carol.Proposal(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	rt.approve(t, id, api.ApproveRequest{IfMatch: shown.Checksum, Entries: map[string]string{"deploy.md": "port 8080 (staging only)\n"}})
	rep := rt.alice.sync(t)
	if got := rt.alice.read(t, "deploy.md"); got != "port 8080 (staging only)\n" || len(rep.Review) != 0 {
		t.Errorf("alice after an edited approval: file %q, notes %+v, want the server's content", got, rep.Review)
	}
	if len(rep.Conflicts) != 1 {
		t.Errorf("alice's own version after an edited approval: conflicts %+v, want it kept as a conflict copy", rep.Conflicts)
	}
}

func TestReviewDeletionProposed(t *testing.T) {
	rt := newReviewTeam(t)
	rt.alice.write(t, "old.md", "stale\n")
	rt.approve(t, proposal(t, rt.alice.sync(t), "old.md").Proposal, api.ApproveRequest{})
	rt.alice.sync(t)
	rt.bob.sync(t)
	rt.alice.write(t, "keep.md", "k\n") // so the deletion is not a mass deletion
	rt.approve(t, proposal(t, rt.alice.sync(t), "keep.md").Proposal, api.ApproveRequest{})
	rt.alice.sync(t)

	if err := os.Remove(filepath.Join(rt.alice.dir, "old.md")); err != nil {
		t.Fatal(err)
	}
	n := proposal(t, rt.alice.sync(t), "old.md")
	if n.Checksum != "" || n.State != ReviewPending {
		t.Fatalf("deletion note = %+v, want a pending deletion", n)
	}
	if rep := rt.alice.sync(t); rep.PUTs != 0 {
		t.Errorf("sync while a deletion is pending sent %d PUTs, want none", rep.PUTs)
	}
	rt.bob.sync(t)
	if got := rt.bob.read(t, "old.md"); got != "stale\n" {
		t.Errorf("bob before the deletion is approved reads %q", got)
	}
	rt.approve(t, n.Proposal, api.ApproveRequest{})
	rt.bob.sync(t)
	if got := rt.bob.read(t, "old.md"); got != "<missing>" {
		t.Errorf("bob after the deletion is approved reads %q, want it gone", got)
	}
	if rep := rt.alice.sync(t); len(rep.Review) != 0 || rt.alice.read(t, "old.md") != "<missing>" {
		t.Errorf("alice after the approved deletion: notes %+v, file %q", rep.Review, rt.alice.read(t, "old.md"))
	}
}

// TestReviewEditProposesAllAgain edits one of two files of a pending
// proposal: both are proposed again together, and the server withdraws
// the old proposal, so a reviewer sees the latest version only.
func TestReviewEditProposesAllAgain(t *testing.T) {
	rt := newReviewTeam(t)
	rt.alice.write(t, "a.md", "a1\n")
	rt.alice.write(t, "b.md", "b1\n")
	rep := rt.alice.sync(t)
	first := proposal(t, rep, "a.md").Proposal
	if proposal(t, rep, "b.md").Proposal != first {
		t.Fatalf("a.md and b.md in different proposals: %+v", rep.Review)
	}
	rt.alice.write(t, "a.md", "a2\n")
	rep = rt.alice.sync(t)
	second := proposal(t, rep, "a.md").Proposal
	if second == first || proposal(t, rep, "b.md").Proposal != second || len(rep.Proposed) != 2 {
		t.Errorf("after editing a.md: proposed %v, notes %+v, want both files in one new proposal", rep.Proposed, rep.Review)
	}
	pending, err := rt.carol.Proposals(context.Background(), testRepo, ProposalQuery{})
	if err != nil || len(pending) != 1 || pending[0].ID != second {
		t.Errorf("pending proposals = %+v, %v, want the new one only", pending, err)
	}
}
