package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
)

// personalHint is what lint and status add to a note of type user held
// back in the team directory: where it belongs, and the command that moves
// it there.
func personalHint(teamDir, key string) string {
	target, err := memsync.PersonalTarget(teamDir, key)
	if err != nil {
		return "move it out of the team directory: it is yours, not the team's"
	}
	return "teammemd lint --fix moves it to your private memory, " + api.Printable(target) +
		" (synced only to your own machines, encrypted, once teammemd personal init or join ran)"
}

// fixPersonal moves each note of type user that found holds back from the
// team directory dir to the private memory above it, and returns the
// findings left and the moves made. A note the repo's saved state knows on
// the server stays: the move would delete it for the team. A move that
// fails is a finding.
func fixPersonal(ctx context.Context, f syncFlags, cfg Config, dir string, found []memsync.Warning) (left []memsync.Warning, moved []lintMove) {
	repo, stateDir := lintRepo(ctx, f, cfg, dir), f.client.resolve(cfg.Client).StateDir
	for _, w := range found {
		if w.Message != memsync.HeldPersonal {
			left = append(left, w)
			continue
		}
		shared, err := memsync.KnownOnServer(stateDir, repo, w.Key)
		if err == nil && shared {
			err = fmt.Errorf("the team's server holds %s (shared by a teammate, or synced before it became of type user): moving it out of the team directory would delete it for the whole team; copy it to your private memory by hand if you want it there", w.Key)
		}
		if err != nil {
			left = append(left, memsync.Warning{Key: w.Key, Message: "not moved to your private memory: " + moveErrText(err)})
			continue
		}
		target, err := memsync.MoveToPersonal(dir, w.Key)
		if err != nil {
			left = append(left, memsync.Warning{Key: w.Key, Message: "not moved to your private memory: " + moveErrText(err)})
			continue
		}
		moved = append(moved, lintMove{Key: w.Key, To: target})
	}
	return left, moved
}

// lintRepo is the repo whose team directory dir is: the one lint found,
// or for --dir the checkout of the Claude Code project dir belongs to;
// "" when none is known, which makes fixPersonal ask every repo's state.
func lintRepo(ctx context.Context, f syncFlags, cfg Config, dir string) string {
	if f.dir == "" {
		if t, err := findTarget(f, cfg, ""); err == nil {
			return t.repo
		}
		return ""
	}
	home, err := claude.Home()
	if err != nil {
		return ""
	}
	checkout, ok := claude.CheckoutOf(home, dir)
	if !ok {
		return ""
	}
	found, err := claude.DiscoverContext(ctx, checkout)
	if err != nil {
		return ""
	}
	return found.Slug
}

// printMoves says where each note went.
func printMoves(w io.Writer, moved []lintMove) {
	for _, m := range moved {
		fmt.Fprintf(w, "%s: moved to %s, your private memory\n", api.Printable(m.Key), api.Printable(m.To))
	}
}

// moveErrText is a failed move's reason, with the fix for a directory
// that has no private memory above it.
func moveErrText(err error) string {
	if errors.Is(err, memsync.ErrNotPersonalLayout) {
		return err.Error() + "; move the note by hand to wherever you keep notes that are yours alone"
	}
	return err.Error()
}
