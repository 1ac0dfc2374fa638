package memsync

import (
	"path"
	"regexp"
	"strings"

	"github.com/teammemd/teammemd/server/api"
)

// LaneStopError stops a personal lane before it writes anything, locally
// or on the server: the key was rotated on another machine, the lane
// holds a note this machine's keys cannot open, or the server has no
// personal lane for the user. Reason says which, with the fix.
type LaneStopError struct{ Reason string }

func (e *LaneStopError) Error() string { return e.Reason }

// LaneStateDir is the state directory of personal lane lane on host, under
// the state root: apart from every team repo's.
func LaneStateDir(stateDir, lane, host string) string {
	return repoStateDir(stateDir, lanePrefix+lane, host)
}

// lanePrefix begins the state name of every personal lane: "~" is in no
// repo slug, so no team repo's state or conflict copies can share it.
const lanePrefix = "~personal/"

// LaneFiles says which files of its directory a personal lane holds.
type LaneFiles int

const (
	// ProjectMemory: a Claude Code project's memory directory, without
	// team/, logs/, sessions/ and proposals/ at its top, hidden files and
	// directories, and conflict copies.
	ProjectMemory LaneFiles = iota
	// UserFiles: Claude Code's user-level files in its config directory,
	// CLAUDE.md and the rules, rules/**/*.md, which Claude Code finds in
	// subdirectories too; hidden files and directories are left out.
	UserFiles
)

// laneLeftOut are the directories at the top of a project's memory
// directory that are not its owner's private notes: the team's, and
// Claude Code's own records.
var laneLeftOut = map[string]bool{"team": true, "logs": true, "sessions": true, "proposals": true}

// conflictCopyName matches the name saveConflict gives a conflict copy:
// <stem>.<UTC time>.<source>[-N]<ext>.
var conflictCopyName = regexp.MustCompile(`\.\d{8}T\d{6}\.\d{3}Z\.[a-z]+(-\d+)?\.[^./]+$`)

// Holds reports whether key, a path in the lane's directory, belongs in
// the lane: a file that syncs at all (api.IsSyncableKey), in no directory
// the lane passes over, and not a conflict copy.
func (f LaneFiles) Holds(key string) bool {
	if !api.IsSyncableKey(key) || conflictCopyName.MatchString(path.Base(key)) {
		return false
	}
	if f == UserFiles && key == "CLAUDE.md" {
		return true
	}
	if f == UserFiles && (!strings.HasPrefix(key, "rules/") || path.Ext(key) != ".md") {
		return false
	}
	for dir := path.Dir(key); dir != "."; dir = path.Dir(dir) {
		if f.skipsDir(dir) {
			return false
		}
	}
	return true
}

// notes reports whether the lane's files are Claude Code memory notes,
// which the guards (CheckNote) judge. Its user-level files are not: a
// CLAUDE.md needs no frontmatter, and a rules file's gives paths, so the
// guards on a note's frontmatter and size would only warn wrongly.
func (f LaneFiles) notes() bool { return f != UserFiles }

// skipsDir reports whether the directory at p holds nothing of the lane's.
func (f LaneFiles) skipsDir(p string) bool {
	if strings.HasPrefix(path.Base(p), ".") {
		return true
	}
	if f == UserFiles {
		return p != "rules" && !strings.HasPrefix(p, "rules/")
	}
	return laneLeftOut[p]
}
