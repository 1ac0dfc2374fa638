package memsync

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teammemd/teammemd/internal/shell"
)

// Report says what one Sync, Pull or Push did. A key whose name holds a
// secret appears in it redacted (api.RedactKey), never by name.
type Report struct {
	// Pulled lists keys written into the team directory from the server.
	Pulled []string
	// Written maps each key written into the team directory to the
	// file's FileID as the stat right after the write saw it, so a watcher
	// can tell these writes from a user's without reading them. A key
	// whose file was changed before that stat is not listed.
	Written map[string]FileID
	// Pushed lists keys sent to the server and stored.
	Pushed []string
	// Proposed lists keys sent to a server that holds the repo under
	// review: it took them as a proposal, not stored yet.
	Proposed []string
	// Review lists the local changes the server holds for review, after
	// the run, pending or rejected (see ReviewNote).
	Review []ReviewNote
	// Deleted lists local files removed because a teammate deleted them.
	Deleted []string
	// SoftDeleted lists keys deleted on the server because they were
	// deleted locally.
	SoftDeleted []string
	// Blocked lists files, and deletions, the secret scanner kept from the
	// server.
	Blocked []Blocked
	// Held lists files held back for a reason other than a secret: a file
	// that cannot be read is neither sent, nor counted as deleted, nor
	// overwritten by a pull, since what it holds is unknown.
	Held []Held
	// HeldDeletions lists files deleted locally whose deletion was not sent
	// to the server because more than half the synced files vanished at
	// once (see MassDeletionError).
	HeldDeletions []string
	// Conflicts lists the conflict copies kept by this run.
	Conflicts []Conflict
	// Skipped lists keys that did not sync, with the reason.
	Skipped []Skipped
	// Refused lists the files the push left out because the server refuses
	// them, with the reason (each is also in Skipped): content refused for
	// good (400, 413, 422), sent again once the file changes, or a file the
	// server has no room for (past the personal quota, a new file over the
	// entry limit), sent again by the next push. The rest of the push went
	// ahead.
	Refused []Skipped
	// NoRoom is set when the push left files out for want of room on the
	// server (the personal quota, a repo's entry limit; they are in
	// Refused): a push after room was made, by a deletion pulled, say,
	// sends them.
	NoRoom bool
	// OverCap, when set, counts the files left unsent because the
	// server's entry limit leaves no room for them (each is also in
	// Skipped).
	OverCap *OverCap
	// Warnings lists what Claude Code will cut or misread in the team
	// directory's notes (see CheckNote), after a push; they block nothing.
	Warnings []Warning
	// PUTs counts the PUT requests sent.
	PUTs int
	// PullAgain is set when a change the server holds is not applied here
	// for a reason that may pass (a file that cannot be read, a file or
	// directory of the user's in the way): the next pull fetches in full,
	// and the next push should pull first, as removing what was in the way
	// changes nothing on the server.
	PullAgain bool
	// NotModified is true when the pull found nothing new (304).
	NotModified bool
	// Rebaselined is true when the server's store identity had changed (a
	// restore from backup, a move), so the run synced afresh: files the
	// server lacks are pushed again, and files it holds otherwise are kept
	// as conflict copies.
	Rebaselined bool
	// Checksum is the repo checksum after the run.
	Checksum string
}

// Blocked is a file held back because the scanner found a secret in it or
// in its name. It never holds the secret itself: Key is redacted when the
// name holds it.
type Blocked struct {
	Key     string
	RuleIDs []string
	// Line is the first finding's line (1-based); 0 for a finding in the
	// name.
	Line int
	// Deletion is set when what is held back is the file's deletion: its
	// name holds a secret, so the deletion is never sent by name.
	Deletion bool
}

// Held is a file held back, and why, with what makes it sync.
type Held struct {
	Key    string
	Reason string
}

// Conflict is one losing version kept outside the team directory.
type Conflict struct {
	Key string `json:"key"`
	// Path is where the losing version was saved.
	Path string `json:"path"`
	// Source is "local" (an unpushed local edit lost to the server) or
	// "server".
	Source string    `json:"source"`
	Time   time.Time `json:"time"`
}

// OverCap is how many of the local files a push left out for the server's
// entry limit.
type OverCap struct {
	// Files were left out, of Local syncable files in the team directory.
	Files, Local int
	// MaxEntries is the server's limit.
	MaxEntries int
}

func (o *OverCap) Error() string {
	return fmt.Sprintf("%d of %d files were not pushed: the server holds at most %d entries per repo "+
		"(delete or merge notes, or ask the server's admin to raise max_entries)", o.Files, o.Local, o.MaxEntries)
}

// Skipped is a key that did not sync and why.
type Skipped struct {
	Key    string
	Reason string
}

func (r *Report) sort() {
	slices.Sort(r.Pulled)
	slices.Sort(r.Pushed)
	slices.Sort(r.Deleted)
	slices.Sort(r.SoftDeleted)
	slices.Sort(r.HeldDeletions)
	slices.SortFunc(r.Blocked, func(a, b Blocked) int { return strings.Compare(a.Key, b.Key) })
	slices.SortFunc(r.Held, func(a, b Held) int { return strings.Compare(a.Key, b.Key) })
	slices.SortFunc(r.Skipped, func(a, b Skipped) int { return strings.Compare(a.Key, b.Key) })
	slices.SortFunc(r.Refused, func(a, b Skipped) int { return strings.Compare(a.Key, b.Key) })
	slices.SortStableFunc(r.Warnings, func(a, b Warning) int { return strings.Compare(a.Key, b.Key) })
	slices.SortFunc(r.Conflicts, func(a, b Conflict) int { return strings.Compare(a.Key, b.Key) })
}

func (r *Report) skip(key, reason string) {
	r.Skipped = append(r.Skipped, Skipped{Key: key, Reason: reason})
}

// MassDeletionError is returned when more than half the synced files are
// gone from the team directory at once: their deletion was not sent to the
// server (Report.HeldDeletions lists them), every other change was.
type MassDeletionError struct {
	Repo    string
	Dir     string
	Missing int
	Known   int
	// Lane is set for a personal lane, which teammemd sync does not run.
	Lane bool
}

func (e *MassDeletionError) Error() string {
	if e.Lane {
		return fmt.Sprintf("%d of %d synced files are gone from %s; refusing to delete them in your personal lane: "+
			"the lane on the server and your other machines still hold them, and their deletion waits here until they are back "+
			"(copy back from another machine those to keep)",
			e.Missing, e.Known, e.Dir)
	}
	target := "--dir " + shell.Quote(e.Dir) + " --repo " + shell.Quote(e.Repo)
	return fmt.Sprintf("%d of %d synced files are gone from %s; refusing to delete them on the server "+
		"(to put them back as the server holds them, run: teammemd sync --restore-deleted %s; to delete them there too: teammemd sync --allow-mass-delete %s)",
		e.Missing, e.Known, e.Dir, target, target)
}

// DirMissingError is returned when the team directory of a repo synced
// before is missing or not a directory: the engine touched nothing, and
// deletes nothing on the server. Once the directory exists again, even
// empty, the next sync restores the server's notes into it.
type DirMissingError struct {
	Dir string
	// Synced is how many files were synced from the directory.
	Synced int
	// NotDir is set when something other than a directory is in its place.
	NotDir bool
}

func (e *DirMissingError) Error() string {
	what, synced := "is missing", "files were"
	if e.NotDir {
		what = "is not a directory"
	}
	if e.Synced == 1 {
		synced = "file was"
	}
	return fmt.Sprintf("team directory %s %s, but %d %s synced from it: nothing is synced or deleted on the server until it exists again (recreate it and the notes are restored from the server)",
		e.Dir, what, e.Synced, synced)
}
