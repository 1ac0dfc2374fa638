package main

import (
	"strings"

	"github.com/teammemd/teammemd/sync/daemon"
)

// reportSkipped reports a repo the daemon would not run. A Claude Code
// project that discovery left out (its checkout gone, no remote, no team
// directory yet) is the ordinary state of a machine: an info line that
// says why. A configured entry that cannot run, or discovery that cannot
// look, fails with the fix where it is set.
func (d *doctor) reportSkipped(s daemon.Skipped) {
	switch {
	case s.DiscoveredProject():
		d.report(checkInfo, "project", s.Source+": not synced: "+s.Reason+
			" (found by discover_claude_projects in [daemon]; nothing to do unless its notes are to be shared)", "")
	case strings.HasPrefix(s.Source, "config "):
		d.report(checkFail, "repo", s.Source+": "+s.Reason, "correct that [[daemon.repo]] entry, or make it a git checkout with a remote")
	default:
		d.report(checkFail, "repo", s.Source+": "+s.Reason,
			"set $CLAUDE_CONFIG_DIR to Claude Code's config directory, or turn off discover_claude_projects in [daemon]")
	}
}
