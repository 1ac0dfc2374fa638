package daemon

import (
	"testing"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
)

// TestStateFromWhatIsTrue derives the state from each combination that
// decides it: idle only when nothing is pending, held back, missing,
// stopped or due for a retry.
func TestStateFromWhatIsTrue(t *testing.T) {
	now := time.Now()
	ok := &OpResult{Time: now, OK: true, Result: "up to date"}
	failed := &OpResult{Time: now.Add(time.Second), OK: false, Result: "failed: boom"}
	tests := []struct {
		name  string
		op    string
		retry bool
		s     RepoStatus
		want  string
	}{
		{"no pull yet", "", false, RepoStatus{}, StateStarting},
		{"a pull runs", StatePulling, false, RepoStatus{LastPull: ok, Pending: []string{"a.md"}}, StatePulling},
		{"a push runs", StatePushing, false, RepoStatus{LastPull: ok, Pending: []string{"a.md"}}, StatePushing},
		{"a pull runs, retrying a failed request", StatePulling, true, RepoStatus{Pending: []string{"a.md"}}, StateRetrying},
		{"a retry is due", "", true, RepoStatus{LastPull: ok, LastPush: failed}, StateRetrying},
		{"pushes stopped", "", false, RepoStatus{LastPull: ok, LastPush: failed, Suppressed: "403 forbidden"}, StateStopped},
		{"directory missing", "", true, RepoStatus{LastPull: failed, Missing: "team directory /t is missing"}, StateMissing},
		{"a failure not retried", "", false, RepoStatus{LastPull: ok, LastPush: failed}, StateFailed},
		{"files pending", "", false, RepoStatus{LastPull: ok, LastPush: ok, Pending: []string{"a.md"}}, StatePending},
		{"a secret held back", "", false, RepoStatus{LastPull: ok, LastPush: ok, Blocked: []Blocked{{Path: "a.md", RuleID: "aws"}}}, StateHeld},
		{"deletions held back", "", false, RepoStatus{LastPull: ok, LastPush: ok, HeldDeletions: []string{"a.md"}}, StateHeld},
		{"a conflict copy unresolved", "", false, RepoStatus{LastPull: ok, LastPush: ok, Conflict: []string{"/state/a.md.conflict"}}, StateConflict},
		{"a secret held back, listed unsent after a failure", "", false,
			RepoStatus{LastPull: ok, LastPush: ok, Pending: []string{"a.md"}, Blocked: []Blocked{{Path: "a.md", RuleID: "aws"}}}, StateHeld},
		{"in sync", "", false, RepoStatus{LastPull: ok, LastPush: ok}, StateIdle},
	}
	for _, tt := range tests {
		b := &statusBox{s: tt.s, op: tt.op}
		if tt.retry {
			b.setRetry(retryPush, now.Add(time.Minute), "connection refused")
		}
		if got := b.snapshot().State; got != tt.want {
			t.Errorf("state(%s) = %s, want %s", tt.name, got, tt.want)
		}
	}
	b := &statusBox{s: RepoStatus{LastPull: ok, LastPush: ok}}
	b.setHeld(retryPull, []memsync.Held{{Key: "a.md", Reason: "cannot be read"}})
	if got := b.snapshot().State; got != StateHeld {
		t.Errorf("state(a file held back by a pull) = %s, want %s", got, StateHeld)
	}
	b.setHeld(retryPull, nil)
	if got := b.snapshot().State; got != StateIdle {
		t.Errorf("state(the file readable again) = %s, want %s", got, StateIdle)
	}
}

// A file held back is listed under its own label with the reason, never
// as pending; the files that do wait stay pending.
func TestHeldFilesAreNotPending(t *testing.T) {
	ok := &OpResult{Time: time.Now(), OK: true, Result: "up to date"}
	b := &statusBox{s: RepoStatus{LastPull: ok, LastPush: ok, Pending: []string{"a.md", "b.md", "c.md", "d.md"},
		Blocked: []Blocked{{Path: "a.md", RuleID: "aws"}}, HeldDeletions: []string{"c.md"}}}
	b.setHeld(retryPush, []memsync.Held{{Key: "b.md", Reason: "too large"}})
	s := b.snapshot()
	if len(s.Pending) != 1 || s.Pending[0] != "d.md" || s.State != StatePending {
		t.Errorf("snapshot() pending %q, state %s, want [d.md], %s", s.Pending, s.State, StatePending)
	}
	if b.s.Pending[0] != "a.md" || len(b.s.Pending) != 4 {
		t.Errorf("snapshot() changed the box's own pending list to %q", b.s.Pending)
	}
}
