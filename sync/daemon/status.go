package daemon

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
)

// Status is what GET /status returns: the daemon and each of its repos.
type Status struct {
	PID     int          `json:"pid"`
	Version string       `json:"version"`
	Started time.Time    `json:"started"`
	Repos   []RepoStatus `json:"repos"`
	// Skipped lists configured or discovered repos that are not running,
	// with the reason.
	Skipped []Skipped `json:"skipped,omitempty"`
	// ReloadError is why the last reload of the config failed, the running
	// repos kept; empty once a reload works.
	ReloadError string `json:"reloadError,omitempty"`
}

// Skipped is a repo the daemon could not start.
type Skipped struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
	// Discovered marks a Claude Code project that discovery left out (see
	// DiscoveredProject), where nothing is wrong: its checkout is gone, or
	// its team directory does not exist yet.
	Discovered bool `json:"discovered,omitempty"`
	// retry marks one whose server could not be asked (see AskAgain); it
	// is not part of the JSON.
	retry bool
}

// RepoStatus is the state of one synced repo.
type RepoStatus struct {
	Repo string `json:"repo"`
	// Lane is "team" for the team repo, "personal" for the owner's
	// personal lane of the project.
	Lane   string `json:"lane"`
	Dir    string `json:"dir"`
	Server string `json:"server"`
	// State is what the repo is doing now: one of the State constants.
	State string `json:"state"`
	// Live tells whether the server answered the last pull or change wait:
	// the change wait is connected, or about to be.
	Live bool `json:"live"`
	// LastContact is when the server last answered a request.
	LastContact *time.Time `json:"lastContact,omitempty"`
	// UnreachableSince is when the first of the requests that have failed
	// to reach the server since its last answer failed; nil while it
	// answers.
	UnreachableSince *time.Time `json:"unreachableSince,omitempty"`
	LastPull         *OpResult  `json:"lastPull,omitempty"`
	LastPush         *OpResult  `json:"lastPush,omitempty"`
	Pending          []string   `json:"pending"`
	// Debouncing lists the files changed here that the daemon has not
	// taken in yet: the watcher holds them until no file has changed
	// for the debounce. They are not Pending, which lists what the
	// daemon knows to send: nothing is sent for them before the debounce
	// is over, and then they are pending until pushed. A file the last
	// pull wrote, as it wrote it, is not in it.
	Debouncing []string  `json:"debouncing"`
	Blocked    []Blocked `json:"blocked"`
	// Held lists files held back for a reason other than a secret the
	// scanner found here, such as a file that cannot be read or one the
	// server refused, each with the reason and the fix.
	Held []Held `json:"held"`
	// Review lists the files whose change the server holds for review
	// (PROTOCOL.md section 14): pending, or rejected with the reason. The
	// local file keeps the change either way.
	Review []ReviewFile `json:"review"`
	// Conflict lists the unresolved conflict copies: "teammemd conflicts"
	// lists them, "teammemd conflicts resolve" settles one.
	Conflict []string `json:"conflicts"`
	// Warnings are what Claude Code will cut or misread in the notes, as
	// the last push found them; they block nothing.
	Warnings []Warning `json:"warnings"`
	// HeldDeletions lists files deleted here whose deletion is not sent,
	// because too many synced files vanished at once; MassDeletion says so
	// and names the command that sends them.
	HeldDeletions []string `json:"heldDeletions"`
	MassDeletion  string   `json:"massDeletion,omitempty"`
	// Missing says that the team directory is missing or not a
	// directory: nothing syncs until it is back.
	Missing string `json:"missing,omitempty"`
	// Halted is why the repo makes no request at all until its config or
	// token changes (State wrong-server, unauthorized, denied or
	// no-token), with the fix; empty when it runs.
	Halted string `json:"halted,omitempty"`
	// Suppressed is why pushes are stopped until the files or the config
	// change, empty when they are not.
	Suppressed string `json:"suppressed,omitempty"`
	// NextRetry is when the soonest retry after a failure is due (a
	// request the client sends again, a push or a change wait), and
	// RetryCause what failed.
	NextRetry  *time.Time `json:"nextRetry,omitempty"`
	RetryCause string     `json:"retryCause,omitempty"`
}

// The values of RepoStatus.State, in the order they take precedence: each
// is derived from what is true of the repo, not from the last operation
// alone, so idle means nothing is pending, in the debounce, held back, in
// conflict or failing.
const (
	StatePulling = "pulling" // a pull runs (retrying a failed request, it is StateRetrying)
	StatePushing = "pushing" // a push runs (retrying a failed request, it is StateRetrying)
	// StateWrongServer: the server URL leads to something other than a
	// teammemd server; see Halted. Nothing is sent until a reload.
	StateWrongServer = "wrong-server"
	// StateUnauthorized: the server rejected the token, or the teammemd
	// login ended; see Halted. Nothing is sent until the token file or
	// the login changes, or a reload.
	StateUnauthorized = "unauthorized"
	// StateDenied: the token has no access to the repo (a 403 to a read);
	// see Halted. Nothing is sent until the token file changes or a
	// reload. A token that may read but not write only stops pushes
	// (StateStopped).
	StateDenied = "denied"
	// StateNoToken: the repo has not started, because its token file
	// gives no token (missing, empty, or not one word); see Halted. It
	// starts when the token file changes or at a reload.
	StateNoToken = "no-token"
	// StateLaneStopped: a personal lane cannot go on with the personal
	// key this machine holds (rotated on another machine, or a note it
	// cannot open); see Halted. Nothing is written until the key changes.
	StateLaneStopped = "lane-stopped"
	StateMissing     = "missing"    // the team directory is missing; see Missing
	StateRetrying    = "retrying"   // a failure is retried, by a pull or push under way or after a wait; see NextRetry
	StateStopped     = "stopped"    // pushes are stopped; see Suppressed
	StateStarting    = "starting"   // no pull has finished yet
	StateFailed      = "failed"     // the last pull or push failed, no retry is due
	StateConflict    = "conflict"   // a conflict copy waits to be settled; see Conflict
	StatePending     = "pending"    // files wait to be pushed; see Pending
	StateDebouncing  = "debouncing" // files changed here wait out the debounce; see Debouncing
	StateHeld        = "held"       // files or deletions are held back
	StateIdle        = "idle"       // in sync, waiting for changes
)

// Sources of a retry, each with its own schedule.
const (
	retryPull = "pull"
	retryPush = "push"
	retryWait = "wait"
)

// retryNote is one scheduled retry.
type retryNote struct {
	at    time.Time
	cause string
}

// OpResult is the outcome of the last pull or push.
type OpResult struct {
	Time   time.Time `json:"time"`
	OK     bool      `json:"ok"`
	Result string    `json:"result"`
}

// ReviewFile is a file whose change the server holds for review.
type ReviewFile struct {
	Path     string `json:"path"`
	Proposal int64  `json:"proposal"`
	// State is ReviewPending ("pending review") or ReviewRejected.
	State    string `json:"state"`
	Reviewer string `json:"reviewer,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// The states of a ReviewFile.
const (
	ReviewPending  = "pending review"
	ReviewRejected = "rejected"
)

// reviewFiles turns a report's review notes into the status's files.
func reviewFiles(notes []memsync.ReviewNote) []ReviewFile {
	out := make([]ReviewFile, 0, len(notes))
	for _, n := range notes {
		f := ReviewFile{Path: n.Key, Proposal: n.Proposal, State: ReviewPending}
		if n.State == memsync.ReviewRejected {
			f.State, f.Reviewer, f.Reason = ReviewRejected, n.Reviewer, n.Reason
		}
		out = append(out, f)
	}
	return out
}

// Blocked is a file held back by the secret scanner. The secret itself is
// never recorded.
type Blocked struct {
	Path   string `json:"path"`
	RuleID string `json:"ruleId"`
}

// Warning is a note Claude Code will not read as meant, and why.
type Warning struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Held is a file held back for a reason other than a secret.
type Held struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// statusBox holds one repo's status for readers on other goroutines.
type statusBox struct {
	mu      sync.Mutex
	s       RepoStatus
	op      string               // StatePulling or StatePushing while one runs
	retries map[string]retryNote // by source; State and NextRetry derive from them
	held    map[string][]Held    // by the operation that held them; Held merges them
	halt    string               // StateWrongServer, StateUnauthorized, StateDenied, StateLaneStopped or StateNoToken while halted
	resumed chan struct{}        // closed when a halt is lifted; nil while running
	// show turns a pending path into the form the status prints
	// (Engine.Show, which redacts a name that holds a secret); nil
	// prints it as it is. It runs when the status is read, not on every
	// watcher batch.
	show func(key string) string
}

// setHalt halts the repo in state with reason and drops every scheduled
// retry; it reports whether the repo was running until now.
func (b *statusBox) setHalt(state, reason string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	first := b.resumed == nil
	if first {
		b.resumed = make(chan struct{})
	}
	b.halt, b.s.Halted, b.s.Live = state, reason, false
	b.retries = nil
	return first
}

// clearHalt lifts a halt; it reports whether there was one.
func (b *statusBox) clearHalt() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.resumed == nil {
		return false
	}
	close(b.resumed)
	b.resumed, b.halt, b.s.Halted = nil, "", ""
	return true
}

// haltDone returns a channel closed when the halt is lifted, nil when the
// repo is not halted.
func (b *statusBox) haltDone() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.resumed
}

// haltKind is the state of the halt, "" when the repo runs.
func (b *statusBox) haltKind() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.halt
}

// setHeld records the files an operation (retryPull or retryPush) held
// back, replacing what it held back before.
func (b *statusBox) setHeld(source string, held []memsync.Held) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held == nil {
		b.held = map[string][]Held{}
	}
	b.held[source] = nil
	for _, h := range held {
		b.held[source] = append(b.held[source], Held{Path: h.Key, Reason: h.Reason})
	}
}

// heldFiles merges the files held back by every operation, one entry per
// file, sorted; a file two operations hold back shows the reason of the
// first by name (the pull's), the same on every call.
func (b *statusBox) heldFiles() []Held {
	out := []Held{}
	for _, source := range slices.Sorted(maps.Keys(b.held)) {
		for _, h := range b.held[source] {
			if !slices.ContainsFunc(out, func(o Held) bool { return o.Path == h.Path }) {
				out = append(out, h)
			}
		}
	}
	slices.SortFunc(out, func(a, b Held) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// setOp records the operation under way, "" when none.
func (b *statusBox) setOp(op string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.op = op
}

// setRetry records that source failed with cause and is retried at at.
func (b *statusBox) setRetry(source string, at time.Time, cause string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.retries == nil {
		b.retries = map[string]retryNote{}
	}
	b.retries[source] = retryNote{at: at, cause: cause}
}

// clearRetry forgets source's retry.
func (b *statusBox) clearRetry(source string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.retries, source)
}

func (b *statusBox) update(f func(*RepoStatus)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(&b.s)
}

// outside is what a status read finds outside the box, the state told
// from it too: the repo's conflict copies as its saved state lists them,
// when known, and the files its watcher holds in the debounce.
type outside struct {
	conflicts      []string
	conflictsKnown bool
	debouncing     []string
}

// snapshot returns a deep copy.
func (b *statusBox) snapshot() RepoStatus { return b.snapshotWith(outside{}) }

// snapshotWith is snapshot with what lies outside the box.
func (b *statusBox) snapshotWith(o outside) RepoStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.s
	s.Pending = b.shownList(s.Pending)
	s.Debouncing = b.shownList(o.debouncing)
	s.Blocked = slices.Clone(s.Blocked)
	s.Conflict = slices.Clone(s.Conflict)
	if o.conflictsKnown {
		s.Conflict = o.conflicts
	}
	s.Warnings = slices.Clone(s.Warnings)
	s.HeldDeletions = slices.Clone(s.HeldDeletions)
	s.Held = b.heldFiles()
	s.Pending = notHeld(s)
	if s.LastPull != nil {
		p := *s.LastPull
		s.LastPull = &p
	}
	if s.LastPush != nil {
		p := *s.LastPush
		s.LastPush = &p
	}
	s.LastContact, s.UnreachableSince = clonedTime(s.LastContact), clonedTime(s.UnreachableSince)
	s.NextRetry, s.RetryCause = b.nextRetry()
	s.State = b.state(s)
	if s.Pending == nil {
		s.Pending = []string{}
	}
	if s.Blocked == nil {
		s.Blocked = []Blocked{}
	}
	if s.Conflict == nil {
		s.Conflict = []string{}
	}
	if s.Warnings == nil {
		s.Warnings = []Warning{}
	}
	if s.HeldDeletions == nil {
		s.HeldDeletions = []string{}
	}
	return s
}

// nextRetry returns the soonest scheduled retry and its cause. A change
// wait's retry is dropped once due: a wait that reached the server is held
// open, so no answer is the sign it is connected, and a new failure records
// a new retry.
func (b *statusBox) nextRetry() (*time.Time, string) {
	var next *time.Time
	cause := ""
	now := time.Now()
	for source, n := range b.retries {
		if source == retryWait && !n.at.After(now) {
			continue
		}
		if next == nil || n.at.Before(*next) {
			at := n.at
			next, cause = &at, n.cause
		}
	}
	return next, cause
}

// state derives RepoStatus.State from the operation under way and s. A
// pull or push that is retrying a failed request shows as retrying, not
// as if all went well.
func (b *statusBox) state(s RepoStatus) string {
	switch {
	case b.op != "" && s.NextRetry != nil:
		return StateRetrying
	case b.op != "":
		return b.op
	case b.halt != "":
		return b.halt
	case s.Missing != "":
		return StateMissing
	case s.NextRetry != nil:
		return StateRetrying
	case s.Suppressed != "":
		return StateStopped
	case s.LastPull == nil:
		return StateStarting
	case !latest(s.LastPull, s.LastPush).OK:
		return StateFailed
	case len(s.Conflict) > 0:
		return StateConflict
	case len(s.Pending) > 0:
		return StatePending
	case len(s.Debouncing) > 0:
		return StateDebouncing
	case len(s.Held) > 0 || len(s.Blocked) > 0 || len(s.HeldDeletions) > 0:
		return StateHeld
	}
	return StateIdle
}

// latest returns the newer of two outcomes; pull is never nil.
func latest(pull, push *OpResult) *OpResult {
	if push != nil && push.Time.After(pull.Time) {
		return push
	}
	return pull
}

// conflictLister is an engine that lists its unresolved conflict copies.
type conflictLister interface {
	Conflicts() ([]memsync.Conflict, error)
}

// conflicts are the repo's conflict copies as its saved state lists them,
// and whether it could be read: the state keeps them across restarts,
// and a copy settled since, by hand or with "teammemd conflicts resolve",
// is gone from it, where the runs' own list knows neither.
func (r *repo) conflicts() ([]string, bool) {
	cl, ok := r.eng.(conflictLister)
	if !ok {
		return nil, false
	}
	cs, err := cl.Conflicts()
	if err != nil {
		return nil, false // the state cannot be read: the runs' own list stands
	}
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out, true
}

// notHeld is s.Pending without the files held back: a file the scanner or
// the server held back, or a deletion held back, is listed as held back
// with its reason, not as waiting to be pushed. The engine lists it as
// unsent after every failed attempt; an edit to it shows as held back
// until the next push scans it again.
func notHeld(s RepoStatus) []string {
	return slices.DeleteFunc(s.Pending, func(p string) bool { return heldBack(s, p) })
}

// heldBack reports whether s lists p, as the status shows it, as held
// back: blocked, held or a deletion held back.
func heldBack(s RepoStatus, p string) bool {
	return slices.ContainsFunc(s.Blocked, func(b Blocked) bool { return b.Path == p }) ||
		slices.ContainsFunc(s.Held, func(h Held) bool { return h.Path == p }) ||
		slices.Contains(s.HeldDeletions, p)
}
