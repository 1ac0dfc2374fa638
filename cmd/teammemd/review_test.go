package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// reviewLab is a server on which acme/app is under review, a team
// directory, and the CLI's arguments for the repo.
type reviewLab struct {
	srv          *servertest.Server
	alice, carol string
	repoArgs     []string
}

func newReviewLab(t *testing.T) reviewLab {
	t.Helper()
	isolateConfig(t)
	srv := servertest.Start(t, servertest.WithConfig(func(c *server.Config) {
		c.Repos = []server.RepoConfig{{Name: "acme/app", Review: server.ReviewRequired}}
	}))
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	return reviewLab{
		srv:      srv,
		alice:    srv.CreateToken(t, "alice", store.Grant{Pattern: "acme/**", Level: store.LevelWrite}),
		carol:    srv.CreateToken(t, "carol", store.Grant{Pattern: "acme/**", Level: store.LevelReview}),
		repoArgs: []string{"--dir", t.TempDir(), "--repo", "acme/app", "--server", srv.URL, "--config", cfg},
	}
}

// propose PUTs entries as alice, as any client would.
func (l reviewLab) propose(t *testing.T, entries map[string]string) {
	t.Helper()
	l.proposeAs(t, l.alice, entries)
}

// proposeAs PUTs entries with token.
func (l reviewLab) proposeAs(t *testing.T, token string, entries map[string]string) {
	t.Helper()
	body, _ := json.Marshal(api.PutRequest{Entries: entries})
	req, _ := http.NewRequest(http.MethodPut, l.srv.URL+api.Path+"?repo=acme%2Fapp", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get(api.ProposalHeader) == "" {
		t.Fatalf("PUT = %d, proposal %q, want 200 and a proposal", resp.StatusCode, resp.Header.Get(api.ProposalHeader))
	}
}

// review runs "teammemd review SUB args... <repo flags>" as token.
func (l reviewLab) review(t *testing.T, token string, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("TEAMMEMD_TOKEN", token)
	return runCLI(t, append(append([]string{"review"}, args...), l.repoArgs...)...)
}

func TestReviewCommand(t *testing.T) {
	l := newReviewLab(t)
	l.propose(t, map[string]string{"deploy.md": "port 8080\n"})
	l.propose(t, map[string]string{"other.md": "dup\n"})

	out, stderr, code := l.review(t, l.carol, "list", "--json")
	var first api.Proposal
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first); code != 0 || err != nil || strings.Count(out, "\n") != 2 {
		t.Fatalf("review list --json = %q (%v), exit %d, stderr %q, want two JSON lines", out, err, code, stderr)
	}
	if first.ID != 1 || first.Subject != "alice" || first.State != api.ProposalPending {
		t.Errorf("first proposal = %+v, want 1 by alice, pending", first)
	}
	if out, _, _ := l.review(t, l.carol, "show", "1"); !strings.Contains(out, "+++ proposed (10 bytes):\nport 8080") ||
		!strings.Contains(out, "on the server now: absent") {
		t.Errorf("review show 1 = %q, want the proposed content and the absent server copy", out)
	}
	out, _, code = l.review(t, l.carol, "show", "1", "--json")
	var shown api.ProposalResponse
	if err := json.Unmarshal([]byte(out), &shown); code != 0 || err != nil || shown.Proposal.Entries["deploy.md"] != "port 8080\n" {
		t.Errorf("review show --json = %q (%v), want the proposal with its content", out, err)
	}
	if _, stderr, code := l.review(t, l.alice, "approve", "1"); code == 0 || !strings.Contains(stderr, "review grant") {
		t.Errorf("approve by a writer: exit %d, stderr %q, want refused for want of a review grant", code, stderr)
	}
	if out, stderr, code := l.review(t, l.carol, "approve", "1"); code != 0 || out != "approved proposal 1 by alice: stored at version 1\n" {
		t.Errorf("review approve 1 = %q, exit %d, stderr %q", out, code, stderr)
	}
	if _, _, code := l.review(t, l.carol, "reject", "2"); code != 2 {
		t.Errorf("review reject without --reason: exit %d, want 2", code)
	}
	if out, _, code := l.review(t, l.carol, "reject", "2", "--reason", "a copy of deploy.md"); code != 0 || out != "rejected proposal 2 by alice: a copy of deploy.md\n" {
		t.Errorf("review reject 2 = %q, exit %d", out, code)
	}
	if out, _, code := l.review(t, l.carol, "purge", "2"); code != 0 || out != "purged the content of proposal 2\n" {
		t.Errorf("review purge 2 = %q, exit %d", out, code)
	}
	if out, _, _ := l.review(t, l.alice, "list", "--state", "rejected"); !strings.Contains(out, "a copy of deploy.md") {
		t.Errorf("author's review list --state rejected = %q, want the reason", out)
	}
	for _, bad := range [][]string{{"approve"}, {"approve", "x"}, {"list", "--state", "maybe"}, {"frob"}, {"approve", "1", "--edit", "nofile"}} {
		if _, _, code := l.review(t, l.carol, bad...); code != 2 {
			t.Errorf("review %q: exit %d, want 2", bad, code)
		}
	}
}

func TestReviewCommandConflict(t *testing.T) {
	l := newReviewLab(t)
	// The second proposal, without other.md, does not supersede the first.
	l.propose(t, map[string]string{"deploy.md": "port 8080\n", "other.md": "o\n"})
	l.propose(t, map[string]string{"deploy.md": "port 9090\n"})
	if _, stderr, code := l.review(t, l.carol, "approve", "2"); code != 0 {
		t.Fatalf("review approve 2: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code := l.review(t, l.carol, "approve", "1")
	if code == 0 || !strings.Contains(stderr, "older version of deploy.md") || !strings.Contains(stderr, "teammemd review approve 1 --edit KEY=FILE") {
		t.Errorf("approve against a changed base: exit %d, stderr %q, want the conflict and how to settle it", code, stderr)
	}
	if out, _, _ := l.review(t, l.carol, "show", "1"); !strings.Contains(out, "conflict: deploy.md changed") || !strings.Contains(out, "port 9090") {
		t.Errorf("review show of a conflict = %q, want the conflict and the server's copy", out)
	}
	mine := filepath.Join(t.TempDir(), "deploy.md")
	if err := os.WriteFile(mine, []byte("port 9090; 8080 for staging\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := l.review(t, l.carol, "approve", "1", "--edit", "deploy.md="+mine); code != 0 || !strings.Contains(out, "stored at version 2") {
		t.Fatalf("review approve --edit = %q, exit %d, stderr %q", out, code, stderr)
	}
	out, stderr, code := runCLI(t, "admin", "audit", "--data", filepath.Dir(l.srv.Path))
	for _, want := range []string{"alice  proposed", "carol  approved", "proposal 1 by alice, edited"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("admin audit = %q (exit %d, %q), want %q", out, code, stderr, want)
		}
	}
}

// TestReviewListWait holds review list --wait until a proposal arrives.
func TestReviewListWait(t *testing.T) {
	l := newReviewLab(t)
	t.Setenv("TEAMMEMD_TOKEN", l.carol)
	done := make(chan string, 1)
	go func() {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"review", "list", "--wait", "30s", "--json"}, l.repoArgs...), &out, io.Discard)
		done <- fmt.Sprint(out.String(), err)
	}()
	for tries, waiting := 0, false; !waiting; tries++ {
		if tries == 2000 {
			t.Fatal("review list --wait never waited on the server")
		}
		resp, err := http.Get(l.srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		waiting = strings.Contains(string(body), "\nteammemd_change_waiters 1\n")
		time.Sleep(10 * time.Millisecond)
	}
	l.propose(t, map[string]string{"deploy.md": "port 8080\n"})
	if out := <-done; !strings.Contains(out, `"keys":["deploy.md"]`) || !strings.HasSuffix(out, "<nil>") {
		t.Errorf("review list --wait = %q, want the new proposal", out)
	}
}

// TestSyncOnReviewedRepo: teammemd sync says a note went to review, and
// after a rejection, why, keeping the file.
func TestSyncOnReviewedRepo(t *testing.T) {
	l := newReviewLab(t)
	dir := l.repoArgs[1]
	note := filepath.Join(dir, "deploy.md")
	if err := os.WriteFile(note, []byte("port 9999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEAMMEMD_TOKEN", l.alice)
	out, stderr, code := runCLI(t, append([]string{"sync"}, l.repoArgs...)...)
	if code != 0 || !strings.Contains(out, "proposed  deploy.md") || !strings.Contains(out, "review    deploy.md: pending review (proposal 1)") {
		t.Fatalf("sync = %q, exit %d, stderr %q, want deploy.md proposed and pending", out, code, stderr)
	}
	if _, stderr, code := l.review(t, l.carol, "reject", "1", "--reason", "we never use 9999"); code != 0 {
		t.Fatalf("review reject: exit %d, %q", code, stderr)
	}
	t.Setenv("TEAMMEMD_TOKEN", l.alice)
	out, _, _ = runCLI(t, append([]string{"sync"}, l.repoArgs...)...)
	if !strings.Contains(out, "review    deploy.md: rejected by carol: we never use 9999") || !strings.Contains(out, "up to date") ||
		!strings.Contains(out, "or take the team's copy with teammemd show deploy.md") {
		t.Errorf("sync after the rejection = %q, want the reason and nothing sent", out)
	}
	if got, _ := os.ReadFile(note); string(got) != "port 9999\n" {
		t.Errorf("the note after the rejection = %q, want it kept", got)
	}
}

// A proposal ID the server does not know is said to be unknown, with
// where to find the real ones: the server's 404 proposal_not_found tells
// it from a server that is not teammemd.
func TestReviewUnknownProposal(t *testing.T) {
	l := newReviewLab(t)
	for _, args := range [][]string{{"show", "99"}, {"approve", "99"}, {"reject", "99", "--reason", "no"}, {"purge", "99"}} {
		_, stderr, code := l.review(t, l.carol, args...)
		if code != exitFailure || !strings.Contains(stderr, "proposal 99: 404 proposal_not_found: there is no proposal with this id (teammemd review list shows them)") ||
			strings.Contains(stderr, "server URL") {
			t.Errorf("review %s: exit %d, stderr %q, want 1 and no proposal 99, without blaming the server URL", strings.Join(args, " "), code, stderr)
		}
	}
}

// A reviewer approving their own proposal is told another reviewer must,
// and not to ask for a grant, which would not help.
func TestReviewApproveOwnProposal(t *testing.T) {
	l := newReviewLab(t)
	l.proposeAs(t, l.carol, map[string]string{"own.md": "mine\n"})
	_, stderr, code := l.review(t, l.carol, "approve", "1")
	if code == 0 || !strings.Contains(stderr, "another reviewer must") || strings.Contains(stderr, "grant") {
		t.Errorf("review approve of one's own proposal: exit %d, stderr %q; want refused, saying another reviewer must, and no grant asked for", code, stderr)
	}
}
