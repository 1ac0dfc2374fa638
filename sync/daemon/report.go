package daemon

import (
	"fmt"
	"slices"
	"strings"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
)

// recordPush folds a push's outcome into the status. A push that held
// deletions back sent everything else, so it counts as done.
func (r *repo) recordPush(rep memsync.Report, err error) {
	now := time.Now()
	outcome := memsync.Classify(err)
	done := outcome == memsync.Done || outcome == memsync.DeletionsHeld
	if done {
		r.status.setHeld(retryPush, slices.Concat(rep.Held, asHeld(rep.Skipped)))
	}
	r.status.update(func(s *RepoStatus) {
		s.LastPush = &OpResult{Time: now, OK: done, Result: pushSummary(rep, err, done)}
		addConflicts(s, rep.Conflicts)
		if !done {
			return
		}
		if pulled := pushPulled(rep); pulled != "" {
			s.LastPull = &OpResult{Time: now, OK: true, Result: pulled}
		}
		s.Missing = ""
		s.Pending = nil
		s.Review = reviewFiles(rep.Review)
		s.Blocked = blockedFiles(rep.Blocked)
		s.Warnings = warnings(rep.Warnings)
		s.HeldDeletions = rep.HeldDeletions
		s.MassDeletion = ""
		if outcome == memsync.DeletionsHeld {
			s.MassDeletion = err.Error()
		}
	})
}

// recordPull folds a pull's outcome into the status.
func (r *repo) recordPull(rep memsync.Report, err error) {
	now := time.Now()
	if err == nil {
		r.status.setHeld(retryPull, slices.Concat(rep.Held, asHeld(rep.Skipped)))
	}
	r.status.update(func(s *RepoStatus) {
		s.LastPull = &OpResult{Time: now, OK: err == nil, Result: pullSummary(rep, err)}
		if err == nil {
			// The server answers; the change wait that follows is held
			// open until the repo changes, so it cannot say so sooner.
			s.Live = true
			s.Missing = ""
			s.Review = reviewFiles(rep.Review)
		}
		addConflicts(s, rep.Conflicts)
	})
}

// asHeld lists the keys that did not sync (Report.Skipped) as held back,
// with the reason: the files the server refused (Report.Refused is a part
// of them), with when they are sent; the files that cannot sync as they
// are (over the size limit, a symlink, a name no note may have); and a
// teammate's note such a file stands in the way of. Counted only, they
// would not sync with nothing to say which or why.
func asHeld(skipped []memsync.Skipped) []memsync.Held {
	out := make([]memsync.Held, 0, len(skipped))
	for _, f := range skipped {
		out = append(out, memsync.Held(f))
	}
	return out
}

func addConflicts(s *RepoStatus, cs []memsync.Conflict) {
	for _, c := range cs {
		if !slices.Contains(s.Conflict, c.Path) {
			s.Conflict = append(s.Conflict, c.Path)
		}
	}
}

// warnings turns the engine's warnings into the status's.
func warnings(ws []memsync.Warning) []Warning {
	out := make([]Warning, 0, len(ws))
	for _, w := range ws {
		out = append(out, Warning{Path: w.Key, Message: w.Message})
	}
	return out
}

// blockedFiles lists one entry per file and rule, never the secret.
func blockedFiles(bs []memsync.Blocked) []Blocked {
	var out []Blocked
	for _, b := range bs {
		for _, id := range b.RuleIDs {
			out = append(out, Blocked{Path: b.Key, RuleID: id})
		}
		if len(b.RuleIDs) == 0 {
			out = append(out, Blocked{Path: b.Key})
		}
	}
	return out
}

// pushSummary counts what a push did; the files it left out, for any
// reason but a secret, count as held back, as the status lists them.
func pushSummary(rep memsync.Report, err error, done bool) string {
	if !done {
		return "failed: " + err.Error()
	}
	parts := counts(map[string]int{"pushed": len(rep.Pushed), "proposed": len(rep.Proposed), "deleted": len(rep.SoftDeleted), "blocked": len(rep.Blocked),
		"held back": len(rep.Held) + len(rep.HeldDeletions) + len(rep.Skipped), "conflicts": len(rep.Conflicts)})
	if parts == "" {
		return "up to date"
	}
	return parts
}

// pushPulled is what a push brought in from the server before it sent
// anything (the files and deletions of its pull round), as the last pull
// shows it; "" when it brought nothing. The push's own line counts only
// what it sent.
func pushPulled(rep memsync.Report) string {
	return counts(map[string]int{"pulled": len(rep.Pulled), "deleted": len(rep.Deleted)})
}

func pullSummary(rep memsync.Report, err error) string {
	if err != nil {
		return "failed: " + err.Error()
	}
	if rep.NotModified {
		return "up to date"
	}
	parts := counts(map[string]int{"pulled": len(rep.Pulled), "deleted": len(rep.Deleted), "held back": len(rep.Held) + len(rep.Skipped), "conflicts": len(rep.Conflicts)})
	if parts == "" {
		return "up to date"
	}
	return parts
}

// counts renders the non-zero counts in a fixed order.
func counts(m map[string]int) string {
	var parts []string
	for _, k := range []string{"pulled", "pushed", "proposed", "deleted", "blocked", "held back", "conflicts"} {
		if n := m[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}
