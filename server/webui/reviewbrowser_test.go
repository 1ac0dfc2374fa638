package webui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserReview follows review in the browser: alice's write to a
// repo under review is a proposal; carol, a reviewer, finds it counted
// and listed, opens its diff and approves it, and rejects bob's with a
// reason, which bob then sees; a person without the review grant finds
// no review page. It keeps screenshots of the list and a proposal.
func TestBrowserReview(t *testing.T) {
	c := startChrome(t)
	team := startReviewTeam(t)
	approved := propose(t, team.srv, team.alice, "acme/app", map[string]string{
		"deploy.md": "---\nname: Deploy\ndescription: How we ship\n---\n# Deploy\n\nStaging listens on port **9090**.\n\nRun `make smoke` after each deploy.\n",
	})
	rejected := propose(t, team.srv, team.bob, "acme/app", map[string]string{"oncall.md": "Page whoever answers first.\n"})

	c.signInByToken(team.srv.URL, team.carol)
	if got := c.text("#repos"); !strings.Contains(got, "2 pending") {
		t.Errorf("repos list = %q, want 2 pending", got)
	}
	c.run("open the review page", chromedp.Click(chromedp.CSS(".review-link")), chromedp.WaitVisible(chromedp.CSS("#pending")))
	if got := c.text("#pending"); !strings.Contains(got, "alice") || !strings.Contains(got, "bob") {
		t.Errorf("pending = %q, want alice's and bob's proposals", got)
	}
	c.shot("review-list")
	link := fmt.Sprintf(`#pending a[href="/ui/proposal?id=%d"]`, approved)
	c.run("open alice's proposal", chromedp.Click(chromedp.CSS(link)), chromedp.WaitVisible(chromedp.CSS("#proposal-meta")))
	if got := c.text("pre.diff .add"); !strings.Contains(got, "port **9090**") {
		t.Errorf("first added line = %q, want the new port", got)
	}
	if got := c.text("article.note strong"); got != "9090" {
		t.Errorf("rendered bold = %q, want 9090", got)
	}
	if n := eval[int](c, unsafeElements); n != 0 {
		t.Errorf("proposal page has %d script, frame, event handler, javascript: or data: elements", n)
	}
	c.shot("review-proposal")
	c.run("approve", chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("#decision")))
	if got := c.text("#decision"); !strings.Contains(got, "Approved by carol") {
		t.Errorf("decision = %q, want approved by carol", got)
	}
	if got := entries(t, team.srv, "acme/app")["deploy.md"]; !strings.Contains(got, "9090") {
		t.Errorf("deploy.md after approval = %q, want alice's version", got)
	}

	reason := "we page the primary first, always"
	c.run("open bob's proposal", chromedp.Navigate(team.srv.URL+proposalURL(rejected)), chromedp.WaitVisible(chromedp.CSS("#reason")))
	c.run("reject with a reason", chromedp.SendKeys(chromedp.CSS("#reason"), reason),
		chromedp.Click(chromedp.CSS("#reject")), chromedp.WaitVisible(chromedp.CSS("#decision")))
	if got := c.text("#decision"); !strings.Contains(got, reason) {
		t.Errorf("decision = %q, want the reason", got)
	}
	c.run("sign out", chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#token")))

	c.signInByToken(team.srv.URL, team.bob)
	c.run("open own proposals", chromedp.Click(chromedp.CSS(".own-link")), chromedp.WaitVisible(chromedp.CSS("#own-rejected")))
	if got := c.text("#own-rejected"); !strings.Contains(got, reason) || !strings.Contains(got, "carol") {
		t.Errorf("bob's rejected proposals = %q, want carol's reason", got)
	}
	c.shot("review-rejected")
	for _, path := range []string{"/ui/review?repo=acme/app", proposalURL(approved)} {
		c.run("open "+path, chromedp.Navigate(team.srv.URL+path), chromedp.WaitVisible(chromedp.CSS("#error")))
		if got := c.text("#error"); !strings.Contains(got, "not found") {
			t.Errorf("%s as bob says %q, want not found", path, got)
		}
	}
}

// TestBrowserReviewConflict approves one of two proposals to a note in
// the browser: the other then shows the conflict, and the reviewer's
// edit of it, typed in the page's text box, lands as typed.
func TestBrowserReviewConflict(t *testing.T) {
	c := startChrome(t)
	team := startReviewTeam(t)
	first := propose(t, team.srv, team.alice, "acme/app", map[string]string{"oncall.md": "Page the secondary first.\n"})
	second := propose(t, team.srv, team.bob, "acme/app", map[string]string{"oncall.md": "Page the primary, then the manager.\n"})
	c.signInByToken(team.srv.URL, team.carol)
	c.run("approve bob's", chromedp.Navigate(team.srv.URL+proposalURL(second)),
		chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("#decision")))
	c.run("open alice's", chromedp.Navigate(team.srv.URL+proposalURL(first)), chromedp.WaitVisible(chromedp.CSS("#conflict")))
	if got := c.text("#conflict"); !strings.Contains(got, "oncall.md") {
		t.Errorf("conflict = %q, want oncall.md named", got)
	}
	if n := eval[int](c, `document.querySelectorAll("#approve").length`); n != 0 {
		t.Errorf("a conflicting proposal offers %d plain approvals, want none", n)
	}
	c.shot("review-conflict")
	merged := "Page the secondary first,\nthen the manager.\n"
	c.run("edit and approve", chromedp.SetValue(chromedp.CSS(`textarea[name="content:oncall.md"]`), merged),
		chromedp.Click(chromedp.CSS("#approve-edited")), chromedp.WaitVisible(chromedp.CSS("#decision")))
	if got := c.text("#decision"); !strings.Contains(got, "with the reviewer's edits") {
		t.Errorf("decision = %q, want approved with edits", got)
	}
	if got := entries(t, team.srv, "acme/app")["oncall.md"]; got != merged {
		t.Errorf("oncall.md after the edited approval = %q, want %q as typed", got, merged)
	}
}
