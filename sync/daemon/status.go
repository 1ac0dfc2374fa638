package daemon

import (
	"slices"
	"sync"
	"time"
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
}

// Skipped is a repo the daemon could not start.
type Skipped struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// RepoStatus is the state of one synced repo.
type RepoStatus struct {
	Repo   string `json:"repo"`
	Dir    string `json:"dir"`
	Server string `json:"server"`
	// Live tells whether the server answered the last pull or change wait:
	// the change wait is connected, or about to be.
	Live     bool      `json:"live"`
	LastPull *OpResult `json:"lastPull,omitempty"`
	LastPush *OpResult `json:"lastPush,omitempty"`
	Pending  []string  `json:"pending"`
	Blocked  []Blocked `json:"blocked"`
	Conflict []string  `json:"conflicts"`
	// Suppressed is why pushes are stopped until the files or the config
	// change, empty when they are not.
	Suppressed string     `json:"suppressed,omitempty"`
	NextRetry  *time.Time `json:"nextRetry,omitempty"`
}

// OpResult is the outcome of the last pull or push.
type OpResult struct {
	Time   time.Time `json:"time"`
	OK     bool      `json:"ok"`
	Result string    `json:"result"`
}

// Blocked is a file held back by the secret scanner. The secret itself is
// never recorded.
type Blocked struct {
	Path   string `json:"path"`
	RuleID string `json:"ruleId"`
}

// statusBox holds one repo's status for readers on other goroutines.
type statusBox struct {
	mu sync.Mutex
	s  RepoStatus
}

func (b *statusBox) update(f func(*RepoStatus)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(&b.s)
}

// snapshot returns a deep copy.
func (b *statusBox) snapshot() RepoStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.s
	s.Pending = slices.Clone(s.Pending)
	s.Blocked = slices.Clone(s.Blocked)
	s.Conflict = slices.Clone(s.Conflict)
	if s.LastPull != nil {
		p := *s.LastPull
		s.LastPull = &p
	}
	if s.LastPush != nil {
		p := *s.LastPush
		s.LastPush = &p
	}
	if s.NextRetry != nil {
		t := *s.NextRetry
		s.NextRetry = &t
	}
	if s.Pending == nil {
		s.Pending = []string{}
	}
	if s.Blocked == nil {
		s.Blocked = []Blocked{}
	}
	if s.Conflict == nil {
		s.Conflict = []string{}
	}
	return s
}
