package daemon

import (
	"slices"
	"strings"
	"testing"

	memsync "github.com/teammemd/teammemd/sync"
)

// A pending path is shown as the engine shows it only when the status is
// read: the box keeps the path as the watcher gave it, and a path whose
// shown form is held back counts as held back.
func TestPendingShownWhenRead(t *testing.T) {
	shows := 0
	show := func(p string) string {
		shows++
		if strings.Contains(p, "secret") {
			return "[redacted].md"
		}
		return p
	}
	b := &statusBox{show: show, s: RepoStatus{Pending: []string{"b.md", "secret-a.md", "secret-b.md"}}}
	if shows != 0 {
		t.Fatalf("show ran %d times before the status was read, want 0", shows)
	}
	if got, want := b.snapshot().Pending, []string{"[redacted].md", "b.md"}; !slices.Equal(got, want) {
		t.Errorf("snapshot().Pending = %q, want %q", got, want)
	}
	if got := b.s.Pending; !slices.Equal(got, []string{"b.md", "secret-a.md", "secret-b.md"}) {
		t.Errorf("the box's own pending list = %q after snapshot, want the paths as given", got)
	}
	b.s.Blocked = []Blocked{{Path: "[redacted].md", RuleID: "aws"}, {Path: "b.md", RuleID: "aws"}}
	if b.hasUnsent() {
		t.Error("hasUnsent() = true with every pending path blocked as shown, want false")
	}
	b.s.Pending = append(b.s.Pending, "c.md")
	if !b.hasUnsent() {
		t.Error("hasUnsent() = false with c.md pending, want true")
	}
}

// The worker's one-field reads agree with the snapshot.
func TestStatusFields(t *testing.T) {
	tests := []struct {
		s       RepoStatus
		stopped bool
		unsent  bool
	}{
		{RepoStatus{}, false, false},
		{RepoStatus{Suppressed: "mass deletion"}, true, false},
		{RepoStatus{Missing: "gone"}, true, false},
		{RepoStatus{Halted: "wrong server"}, true, false},
		{RepoStatus{HeldDeletions: []string{"a.md"}}, false, true},
		{RepoStatus{Pending: []string{"a.md"}}, false, true},
	}
	for _, tt := range tests {
		b := &statusBox{s: tt.s}
		snap := b.snapshot()
		if got := b.suppressed(); got != snap.Suppressed {
			t.Errorf("suppressed() of %+v = %q, want %q", tt.s, got, snap.Suppressed)
		}
		if got := b.missing(); got != snap.Missing {
			t.Errorf("missing() of %+v = %q, want %q", tt.s, got, snap.Missing)
		}
		if got := b.stopped(); got != tt.stopped {
			t.Errorf("stopped() of %+v = %v, want %v", tt.s, got, tt.stopped)
		}
		if got, want := b.hasUnsent(), len(snap.Pending) > 0 || len(snap.HeldDeletions) > 0; got != want || got != tt.unsent {
			t.Errorf("hasUnsent() of %+v = %v, want %v", tt.s, got, tt.unsent)
		}
	}
}

// A file both the pull and the push hold back shows one reason, the
// pull's, on every call: the status does not flip between the two.
func TestHeldFilesOneReasonAlways(t *testing.T) {
	var b statusBox
	b.setHeld(retryPush, []memsync.Held{{Key: "a.md", Reason: "the push's"}, {Key: "b.md", Reason: "only the push's"}})
	b.setHeld(retryPull, []memsync.Held{{Key: "a.md", Reason: "the pull's"}})
	for range 50 {
		got := b.heldFiles()
		if len(got) != 2 || got[0] != (Held{Path: "a.md", Reason: "the pull's"}) || got[1] != (Held{Path: "b.md", Reason: "only the push's"}) {
			t.Fatalf("heldFiles() = %+v, want a.md with the pull's reason, then b.md", got)
		}
	}
}
