package daemon

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	memsync "github.com/teammemd/teammemd/sync"
)

// TestReviewTwoDaemons runs alice's and bob's daemons on a repo under
// review, with carol reviewing: alice's note reaches bob only once carol
// approves it, and alice's next edit, rejected, stays in her file.
func TestReviewTwoDaemons(t *testing.T) { bubble(t, testReviewTwoDaemons) }

func testReviewTwoDaemons(t *testing.T) {
	srv := startServer(t, servertest.WithConfig(func(c *server.Config) {
		c.Repos = []server.RepoConfig{{Name: slug, Review: server.ReviewRequired}}
	}))
	writer := store.Grant{Pattern: "acme/**", Level: store.LevelWrite}
	carol, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{
		AccessToken: srv.CreateToken(t, "carol", store.Grant{Pattern: "acme/**", Level: store.LevelReview})}), memsync.WithTransport(newTransport(t)))
	if err != nil {
		t.Fatal(err)
	}
	dirA, dirB := t.TempDir(), t.TempDir()
	spec := func(dir string) Plan {
		return Plan{Specs: []Spec{{Repo: slug, Dir: dir, Server: srv.URL, Source: "test"}}}
	}
	// Alice's daemon rescans often, so it asks what became of her
	// proposal soon after carol decides.
	a := startNode(t, srv.CreateToken(t, "alice", writer), spec(dirA), func(o *Options) { o.Watch.Rescan = 200 * time.Millisecond })
	b := startNode(t, srv.CreateToken(t, "bob", writer), spec(dirB), nil)
	eventually(t, "both daemons live", func() bool {
		ra, _ := a.repoStatus(dirA)
		rb, _ := b.repoStatus(dirB)
		return ra.Live && rb.Live
	})

	write(t, dirA, "deploy.md", "port 8080\n")
	st := a.settles(t, dirA, "alice's note pending review", func(r RepoStatus) bool {
		return len(r.Review) == 1 && r.Review[0].State == ReviewPending && len(r.Pending) == 0
	})
	if got := serverEntries(t, srv); len(got) != 0 {
		t.Fatalf("server before approval holds %v, want nothing", got)
	}
	if _, err := carol.Approve(context.Background(), st.Review[0].Proposal, api.ApproveRequest{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the approved note on bob's machine", fileIs(filepath.Join(dirB, "deploy.md"), "port 8080\n"))
	a.settles(t, dirA, "alice settled after approval", func(r RepoStatus) bool { return len(r.Review) == 0 && len(r.Pending) == 0 })

	write(t, dirA, "deploy.md", "port 9999\n")
	st = a.settles(t, dirA, "alice's edit pending review", func(r RepoStatus) bool {
		return len(r.Review) == 1 && r.Review[0].State == ReviewPending
	})
	if _, err := carol.Reject(context.Background(), st.Review[0].Proposal, "we never use 9999"); err != nil {
		t.Fatal(err)
	}
	st = a.settles(t, dirA, "alice sees the rejection", func(r RepoStatus) bool {
		return len(r.Review) == 1 && r.Review[0].State == ReviewRejected
	})
	if f := st.Review[0]; f.Reason != "we never use 9999" || f.Reviewer != "carol" || f.Path != "deploy.md" {
		t.Errorf("alice's status after the rejection = %+v, want deploy.md rejected by carol with the reason", f)
	}
	if got, _ := os.ReadFile(filepath.Join(dirA, "deploy.md")); string(got) != "port 9999\n" || len(st.Conflict) != 0 {
		t.Errorf("alice's file after the rejection = %q, conflicts %v, want her edit in place and no conflict", got, st.Conflict)
	}
	if got := serverEntries(t, srv)["deploy.md"]; got != "port 8080\n" {
		t.Errorf("server after the rejection holds %q, want the approved note", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dirB, "deploy.md")); string(got) != "port 8080\n" {
		t.Errorf("bob's file after the rejection = %q, want the approved note", got)
	}
}
