package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
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
// findings left and the moves made. A move that fails is a finding.
func fixPersonal(dir string, found []memsync.Warning) (left []memsync.Warning, moved []lintMove) {
	for _, w := range found {
		if w.Message != memsync.HeldPersonal {
			left = append(left, w)
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
