package memsync

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Report says what one Sync, Pull or Push did. A key whose name holds a
// secret appears in it redacted (api.RedactKey), never by name.
type Report struct {
	// Pulled lists keys written into the team directory from the server.
	Pulled []string
	// PulledChecksums maps each key written into the team directory to the
	// entry checksum of the content written, so a watcher can tell these
	// writes from a user's.
	PulledChecksums map[string]string
	// Pushed lists keys sent to the server.
	Pushed []string
	// Deleted lists local files removed because a teammate deleted them.
	Deleted []string
	// SoftDeleted lists keys deleted on the server because they were
	// deleted locally.
	SoftDeleted []string
	// Blocked lists files, and deletions, the secret scanner kept from the
	// server.
	Blocked []Blocked
	// Conflicts lists the conflict copies kept by this run.
	Conflicts []Conflict
	// Skipped lists keys that did not sync, with the reason.
	Skipped []Skipped
	// PUTs counts the PUT requests sent.
	PUTs int
	// NotModified is true when the pull found nothing new (304).
	NotModified bool
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
	slices.SortFunc(r.Blocked, func(a, b Blocked) int { return strings.Compare(a.Key, b.Key) })
	slices.SortFunc(r.Skipped, func(a, b Skipped) int { return strings.Compare(a.Key, b.Key) })
	slices.SortFunc(r.Conflicts, func(a, b Conflict) int { return strings.Compare(a.Key, b.Key) })
}

func (r *Report) skip(key, reason string) {
	r.Skipped = append(r.Skipped, Skipped{Key: key, Reason: reason})
}

// MassDeletionError is returned instead of propagating a mass deletion: the
// team directory missing or emptied, or more than half the known files gone
// at once. Nothing was deleted on the server.
type MassDeletionError struct {
	Repo       string
	Dir        string
	Missing    int
	Known      int
	DirMissing bool
}

func (e *MassDeletionError) Error() string {
	fix := fmt.Sprintf("to delete them there too, run: teammemd sync --allow-mass-delete --dir %s --repo %s",
		shellQuote(e.Dir), shellQuote(e.Repo))
	if e.DirMissing {
		return fmt.Sprintf("team directory %s is missing but %d files were synced from it; refusing to delete them on the server (restore the directory, or %s)", e.Dir, e.Known, fix)
	}
	return fmt.Sprintf("%d of %d synced files are gone from %s; refusing to delete them on the server (restore them, or %s)", e.Missing, e.Known, e.Dir, fix)
}

// shellQuote returns s as one POSIX shell word, quoted only when needed.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./@:+-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
