package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/teammemd/teammemd/checkup"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/service"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
)

// The --json output of each command is one of the named types below (or,
// for status, show, scan and admin audit, the type it names), documented
// in docs/reference/json.md. Times are RFC 3339; no field is a duration.

// doctorJSON is "doctor --json": every check in order.
type doctorJSON struct {
	OK     bool            `json:"ok"`     // no check failed
	Failed int             `json:"failed"` // how many checks failed
	Checks []checkup.Check `json:"checks"`
}

// runDoctorJSON runs the checks and prints them as doctorJSON.
func runDoctorJSON(ctx context.Context, d *doctor, stdout io.Writer) error {
	d.out = io.Discard
	err := runDoctor(ctx, d)
	if jerr := writeJSON(stdout, doctorJSON{OK: d.rep.Failed() == 0, Failed: d.rep.Failed(), Checks: d.rep.Checks()}); jerr != nil {
		return jerr
	}
	return err
}

// historyJSON is "history --json": the revisions newest first, without
// content. Key is empty for the history of the whole repo, where each
// revision names its key.
type historyJSON struct {
	Key       string         `json:"key,omitempty"`
	Revisions []api.Revision `json:"revisions"`
}

// showRevisionJSON prints "show --json": the api.Revision, with its
// content while the server keeps it.
func showRevisionJSON(ctx context.Context, eng *memsync.Engine, key string, version int64, stdout io.Writer) error {
	rev, err := eng.Revision(ctx, key, version)
	if err != nil {
		return explainSyncError(err)
	}
	if rev.Key == "" {
		rev.Key = key
	}
	return writeJSON(stdout, rev)
}

// conflictsJSON is "conflicts --json": every conflict copy of every repo.
type conflictsJSON struct {
	Conflicts []conflictJSON `json:"conflicts"`
}

// conflictJSON is one conflict copy.
type conflictJSON struct {
	// Repo is the repo slug; for a personal lane, the name of its state.
	Repo   string `json:"repo"`
	Server string `json:"server"`
	// Lane is "personal" for a personal lane's copy; absent for a team
	// repo's. Project is that lane's project (~user for the user files),
	// absent when this machine's key does not tell which.
	Lane    string    `json:"lane,omitempty"`
	Project string    `json:"project,omitempty"`
	Key     string    `json:"key"`
	Time    time.Time `json:"time"`
	// Source is the side the copy keeps, the one that lost: "local" (an
	// unpushed local edit) or "server".
	Source string `json:"source"`
	Copy   string `json:"copy"`           // the copy's path
	Size   *int64 `json:"size,omitempty"` // absent when the copy is missing
}

func conflictList(repos []memsync.RepoConflicts, projects map[string]string) conflictsJSON {
	out := conflictsJSON{Conflicts: []conflictJSON{}}
	for _, r := range repos {
		for _, c := range r.Conflicts {
			cj := conflictJSON{Repo: r.Repo, Server: r.Server, Key: c.Key, Time: c.Time, Source: c.Source, Copy: c.Path}
			if r.Lane != "" {
				cj.Lane, cj.Project = daemon.LanePersonal, projects[r.Repo]
			}
			if fi, err := os.Stat(c.Path); err == nil {
				size := fi.Size()
				cj.Size = &size
			}
			out.Conflicts = append(out.Conflicts, cj)
		}
	}
	return out
}

// syncJSON is "sync --json": what one sync did. Error is set when it
// failed (the exit status is not 0 then).
type syncJSON struct {
	Repo          string             `json:"repo"`
	Dir           string             `json:"dir"`
	Pulled        []string           `json:"pulled"`
	Pushed        []string           `json:"pushed"`
	Deleted       []string           `json:"deleted"` // local files removed: a teammate deleted them
	Removed       []string           `json:"removed"` // deleted on the server: deleted here
	Blocked       []syncBlocked      `json:"blocked"`
	Held          []syncKeyReason    `json:"held"`
	HeldDeletions []string           `json:"heldDeletions"`
	Conflicts     []memsync.Conflict `json:"conflicts"`
	Skipped       []syncKeyReason    `json:"skipped"`
	Warnings      []syncKeyReason    `json:"warnings"`
	OverCap       *syncOverCap       `json:"overCap,omitempty"`
	NotModified   bool               `json:"notModified"`
	Rebaselined   bool               `json:"rebaselined"`
	Checksum      string             `json:"checksum,omitempty"`
	Error         string             `json:"error,omitempty"`
}

// syncBlocked is a file, or its deletion, the secret scan held back.
type syncBlocked struct {
	Key      string   `json:"key"`
	Rules    []string `json:"rules"`
	Line     int      `json:"line"` // 0: the secret is in the file name
	Deletion bool     `json:"deletion"`
}

// syncKeyReason is a key with why it was held, skipped or warned about.
type syncKeyReason struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// syncOverCap counts the files left unsent for the server's entry limit.
type syncOverCap struct {
	Files      int `json:"files"`
	Local      int `json:"local"`
	MaxEntries int `json:"maxEntries"`
}

func syncReport(repo, dir string, r memsync.Report, err error) syncJSON {
	out := syncJSON{
		Repo: repo, Dir: dir, Pulled: orEmpty(r.Pulled), Pushed: orEmpty(r.Pushed), Deleted: orEmpty(r.Deleted),
		Removed: orEmpty(r.SoftDeleted), HeldDeletions: orEmpty(r.HeldDeletions), Conflicts: orEmpty(r.Conflicts),
		Blocked: []syncBlocked{}, Held: []syncKeyReason{}, Skipped: []syncKeyReason{}, Warnings: []syncKeyReason{},
		NotModified: r.NotModified, Rebaselined: r.Rebaselined, Checksum: r.Checksum,
	}
	for _, b := range r.Blocked {
		out.Blocked = append(out.Blocked, syncBlocked{Key: b.Key, Rules: orEmpty(b.RuleIDs), Line: b.Line, Deletion: b.Deletion})
	}
	for _, h := range r.Held {
		out.Held = append(out.Held, syncKeyReason{h.Key, h.Reason})
	}
	for _, s := range r.Skipped {
		out.Skipped = append(out.Skipped, syncKeyReason{s.Key, s.Reason})
	}
	for _, w := range r.Warnings {
		out.Warnings = append(out.Warnings, syncKeyReason{w.Key, w.Message})
	}
	if r.OverCap != nil {
		out.OverCap = &syncOverCap{Files: r.OverCap.Files, Local: r.OverCap.Local, MaxEntries: r.OverCap.MaxEntries}
	}
	if err != nil {
		out.Error = explainSyncError(err).Error()
	}
	return out
}

// tokensJSON is "token list --json": every token, never a secret or its
// hash.
type tokensJSON struct {
	Tokens []tokenJSON `json:"tokens"`
}

// tokenJSON is one token.
type tokenJSON struct {
	ID      string      `json:"id"`
	Subject string      `json:"subject"`
	Grants  []grantJSON `json:"grants"`
	Created time.Time   `json:"created"`
	Revoked *time.Time  `json:"revoked,omitempty"`
}

// grantJSON is one grant of a token: the repos matching Pattern, read or
// write.
type grantJSON struct {
	Pattern string `json:"pattern"`
	Level   string `json:"level"`
}

func tokenList(toks []store.Token) tokensJSON {
	out := tokensJSON{Tokens: []tokenJSON{}}
	for _, t := range toks {
		tj := tokenJSON{ID: t.ID, Subject: t.Subject, Grants: []grantJSON{}, Created: t.CreatedAt}
		for _, g := range t.Grants {
			tj.Grants = append(tj.Grants, grantJSON{Pattern: g.Pattern, Level: string(g.Level)})
		}
		if !t.RevokedAt.IsZero() {
			revoked := t.RevokedAt
			tj.Revoked = &revoked
		}
		out.Tokens = append(out.Tokens, tj)
	}
	return out
}

// lintJSON is "lint --json": the findings in the team directory, and
// with --fix the notes moved to the private memory.
type lintJSON struct {
	Dir      string        `json:"dir"`
	Findings []lintFinding `json:"findings"`
	Moved    []lintMove    `json:"moved,omitempty"`
}

// lintMove is a note of type user lint --fix moved out of the team
// directory.
type lintMove struct {
	Key string `json:"key"`
	To  string `json:"to"` // its path in the private memory
}

// lintFinding is what Claude Code would cut or misread in one note.
type lintFinding struct {
	Key     string `json:"key"`
	Message string `json:"message"`
}

// writeLintJSON prints lintJSON and, as the text output does, fails with
// status 1 on a finding.
func writeLintJSON(w io.Writer, dir string, found []memsync.Warning, moved []lintMove) error {
	out := lintJSON{Dir: dir, Findings: []lintFinding{}, Moved: moved}
	for _, f := range found {
		out.Findings = append(out.Findings, lintFinding{Key: f.Key, Message: f.Message})
	}
	if err := writeJSON(w, out); err != nil {
		return err
	}
	if len(found) > 0 {
		return exitError{code: exitFailure, err: fmt.Errorf("%d finding(s) in %s", len(found), api.Printable(dir))}
	}
	return nil
}

// serviceStatusJSON is "service status --json". Daemon is what the daemon
// reports, as "status --json" prints it; DaemonError says why it is absent.
type serviceStatusJSON struct {
	Service     string         `json:"service"`
	Unit        string         `json:"unit"`
	Installed   bool           `json:"installed"`
	Enabled     bool           `json:"enabled"`
	Running     bool           `json:"running"`
	Detail      string         `json:"detail"`
	Daemon      *daemon.Status `json:"daemon,omitempty"`
	DaemonError string         `json:"daemonError,omitempty"`
}

// writeServiceStatusJSON prints serviceStatusJSON: the report, and the
// daemon's status on socket or why there is none.
func writeServiceStatusJSON(r service.Report, socket string, ds daemon.Status, err error, w io.Writer) error {
	out := serviceStatusJSON{Service: r.Name, Unit: r.Unit, Installed: r.Installed,
		Enabled: r.State.Enabled, Running: r.Runs(), Detail: r.State.Detail}
	switch {
	case errors.Is(err, daemon.ErrNotRunning):
		out.DaemonError = "the daemon does not answer on " + socket
	case err != nil:
		out.DaemonError = err.Error()
	default:
		out.Daemon = &ds
	}
	return writeJSON(w, out)
}

// personalStatusJSON is "personal status --json". Problem says why the
// lane cannot run (the exit status is 1 then).
type personalStatusJSON struct {
	Server      string `json:"server"`
	KeyID       string `json:"keyId,omitempty"`  // this machine's key; absent when none
	KeptIn      string `json:"keptIn,omitempty"` // "keyring" or the key file's path
	Rotating    bool   `json:"rotating"`         // a rotation begun here is unfinished
	ServerKeyID string `json:"serverKeyId"`      // the server's key; "" before init
	// Lanes are the server's lanes of the caller: sizes of ciphertext, no
	// names.
	Lanes    []api.LaneInfo      `json:"lanes"`
	Quota    api.Quota           `json:"quota"`
	Projects []personalProject   `json:"projects"`
	Daemon   *personalDaemonJSON `json:"daemon,omitempty"`
	Problem  string              `json:"problem,omitempty"`
}

// personalProject is one local project and its lane under this machine's
// key.
type personalProject struct {
	Project  string `json:"project"`       // the team repo slug, or ~user
	Dir      string `json:"dir,omitempty"` // its private memory directory
	Lane     string `json:"lane"`
	OnServer bool   `json:"onServer"`
	Entries  int    `json:"entries"`
}

// personalDaemonJSON is whether the daemon runs, and the state of each
// personal lane it runs.
type personalDaemonJSON struct {
	Running bool                 `json:"running"`
	PID     int                  `json:"pid,omitempty"`
	Version string               `json:"version,omitempty"`
	Detail  string               `json:"detail"`
	Lanes   []personalDaemonLane `json:"lanes,omitempty"`
}

// personalDaemonLane is one personal lane as the daemon reports it.
type personalDaemonLane struct {
	Project string `json:"project"`
	Dir     string `json:"dir"`
	State   string `json:"state"`
	Stopped string `json:"stopped,omitempty"` // why it makes no request, when it does not
}

// jsonFlag registers --json, to print what instead of text.
func jsonFlag(fs *pflag.FlagSet, what string) *bool {
	return fs.Bool("json", false, "print "+what+" as JSON (see docs/reference/json.md)")
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// orEmpty is s, or an empty slice for nil: JSON [] rather than null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// personalListJSON is "admin personal list --json": every subject with a
// personal lane or key, by sizes; never content.
type personalListJSON struct {
	Subjects []personalSubjectJSON `json:"subjects"`
}

// personalSubjectJSON is one subject's personal lanes.
type personalSubjectJSON struct {
	Subject string `json:"subject"`
	// HasKey is false for a subject whose key is gone but lanes are not.
	HasKey       bool       `json:"hasKey"`
	Lanes        int        `json:"lanes"`
	Entries      int        `json:"entries"`
	Bytes        int64      `json:"bytes"`
	LastModified *time.Time `json:"lastModified,omitempty"`
}

func personalList(subjects []store.PersonalSubject) personalListJSON {
	out := personalListJSON{Subjects: []personalSubjectJSON{}}
	for _, p := range subjects {
		pj := personalSubjectJSON{Subject: p.Subject, HasKey: p.KeyID != "", Lanes: p.Lanes, Entries: p.Usage.Entries, Bytes: p.Usage.Bytes}
		if !p.LastModified.IsZero() {
			modified := p.LastModified
			pj.LastModified = &modified
		}
		out.Subjects = append(out.Subjects, pj)
	}
	return out
}

// identityListJSON is "admin identity list --json": every subject bound to
// an account.
type identityListJSON struct {
	Bindings []identityBindingJSON `json:"bindings"`
}

// identityBindingJSON is one subject's binding: the identity service's id
// of the account that first signed in as it.
type identityBindingJSON struct {
	Subject   string    `json:"subject"`
	AccountID string    `json:"accountId"`
	BoundAt   time.Time `json:"boundAt"`
}

func identityList(bindings []store.IdentityBinding) identityListJSON {
	out := identityListJSON{Bindings: []identityBindingJSON{}}
	for _, b := range bindings {
		out.Bindings = append(out.Bindings, identityBindingJSON{Subject: b.Subject, AccountID: b.AccountID, BoundAt: b.BoundAt})
	}
	return out
}
