package daemon

import "slices"

// The statusBox's fields one at a time, for the worker's decisions: each
// reads under the lock what it needs, with no copy of the whole status.

// suppressed is why pushes are stopped, "" while they run.
func (b *statusBox) suppressed() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s.Suppressed
}

// missing is why the team directory is missing, "" while it is there.
func (b *statusBox) missing() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s.Missing
}

// stopped reports whether pushes are suppressed, the team directory is
// missing or the repo is halted.
func (b *statusBox) stopped() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s.Suppressed != "" || b.s.Missing != "" || b.s.Halted != ""
}

// hasUnsent reports whether the status lists a file waiting to be pushed
// or a deletion held back: a snapshot's Pending or HeldDeletions is not
// empty.
func (b *statusBox) hasUnsent() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.s.HeldDeletions) > 0 {
		return true
	}
	if len(b.s.Pending) == 0 {
		return false
	}
	s := b.s
	s.Held = b.heldFiles()
	return slices.ContainsFunc(s.Pending, func(p string) bool { return !heldBack(s, b.shown(p)) })
}

// shownList is paths as the status prints them, each once, sorted.
func (b *statusBox) shownList(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p = b.shown(p); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// shown is p as the status prints it.
func (b *statusBox) shown(p string) string {
	if b.show == nil {
		return p
	}
	return b.show(p)
}
