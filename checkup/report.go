// Package checkup keeps the report of "teammemd doctor", its checks in the
// order they ran, the checks that ask the server (that it answers, speaks
// the protocol and takes the token), and the checks that look at this
// machine alone: the team directories' permissions, the inotify limits and
// the clock against the server's.
package checkup

import (
	"fmt"
	"io"
)

// Check outcomes.
const (
	OK   = "ok"
	Fail = "FAIL"
	Skip = "skip"
	// Info is a state worth knowing that needs nothing done.
	Info = "info"
)

// Check is one check of doctor.
type Check struct {
	Outcome string `json:"outcome"` // ok, FAIL, skip or info
	Name    string `json:"name"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"` // set for a failure
}

// Report prints each check's line as it comes, and keeps the checks in
// order. Later checks read what earlier ones found from the caller's own
// state; the report only counts the failures.
type Report struct {
	out    io.Writer
	checks []Check
	failed int
}

// NewReport is a report that prints to w.
func NewReport(w io.Writer) *Report { return &Report{out: w} }

// Add prints one check's line: its outcome, name and detail, and for a
// failure the fix.
func (r *Report) Add(outcome, name, detail, fix string) {
	line := fmt.Sprintf("%-4s  %-14s %s", outcome, name, detail)
	c := Check{Outcome: outcome, Name: name, Detail: detail}
	if outcome == Fail {
		r.failed++
		line += "; fix: " + fix
		c.Fix = fix
	}
	r.checks = append(r.checks, c)
	fmt.Fprintln(r.out, line)
}

// Checks are the checks reported so far, in order.
func (r *Report) Checks() []Check { return r.checks }

// Failed is how many checks failed.
func (r *Report) Failed() int { return r.failed }

// Result is what one check of this machine found: its outcome, what it
// saw, and for a failure the fix.
type Result struct {
	Outcome, Detail, Fix string
}

// Plural is one or many by n.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
