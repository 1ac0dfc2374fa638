package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

// Most notes of a personal lane gone at once are held back, as in a team
// repo, and the error never offers a teammemd sync of the memory directory
// as the team repo's: that would push the user's private notes to the
// team, and delete the team's notes the memory directory does not hold.
func TestLaneMassDeletionOffersNoTeamSync(t *testing.T) {
	l := newLaneLab(t)
	a := openLaneMachine(t, l.srv, l.keys, "acme/app", l.mem, l.state)
	keys := []string{"a.md", "b.md", "c.md", "d.md"}
	for _, k := range keys {
		claudetest.WriteNote(t, l.mem, k, k+" private\n")
	}
	a.sync(t)
	for _, k := range keys[1:] {
		if err := os.Remove(filepath.Join(l.mem, k)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := a.eng.Sync(context.Background())
	var mass *memsync.MassDeletionError
	if !errors.As(err, &mass) || len(rep.HeldDeletions) != 3 {
		t.Fatalf("lane sync after 3 of 4 notes were deleted = %+v, %v; want them held back", rep, err)
	}
	msg := err.Error()
	if strings.Contains(msg, "teammemd sync") || !strings.Contains(msg, "personal lane") {
		t.Errorf("a personal lane's mass deletion says %q, want the lane's way and no teammemd sync of the team repo", msg)
	}
}
