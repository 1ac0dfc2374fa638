package faulttest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/server/api"
)

// tally is what the checks found, for the suite's summary and its
// failures.
type tally struct {
	saves, required, inHistory, inConflict, excused, lost int
	conflictCopies                                        int
	// settled is how long the team directories and the server took to
	// agree once the checks began.
	settled    time.Duration
	violations []string
}

func (t *tally) violate(format string, args ...any) {
	t.violations = append(t.violations, fmt.Sprintf(format, args...))
}

// evidence is everything the invariants are checked against, gathered
// once the team directories and the server agree.
type evidence struct {
	history   map[string]map[string][]int64 // key -> checksum -> versions it was written at
	revisions map[string]int                // key -> revisions
	conflicts map[string]string             // checksum -> a conflict copy holding it
	written   map[string]save               // checksum -> the save that wrote it
}

// verify waits up to limit for the team directories and the server to
// agree, then checks every invariant.
func (r *rig) verify(ctx context.Context, limit time.Duration) tally {
	var t tally
	ev := evidence{written: map[string]save{}}
	for _, s := range r.sides {
		for _, sv := range slices.Concat(s.w.saves, s.pw.saves) {
			ev.written[sv.sum] = sv
		}
	}
	begin := time.Now()
	if diff := r.converge(ctx, limit, ev); diff != "" {
		t.violate("convergence: %s", diff)
	}
	t.settled = time.Since(begin)
	for _, s := range r.sides {
		if p := s.d.Proc(); p.Exited() {
			t.violate("%s's daemon exited on its own (log: %s)", s.name, p.LogTail())
		}
	}
	if err := r.gather(ctx, &ev, &t); err != nil {
		t.violate("gather evidence: %v", err)
		return t
	}
	for _, s := range r.sides {
		r.account(s, ev, &t)
		r.checkDir(s, ev, &t)
	}
	r.verifyPersonal(ctx, limit, ev, &t)
	return t
}

// converge polls until every note is the same in both team directories
// and on the server, and describes the first difference if limit passes.
func (r *rig) converge(ctx context.Context, limit time.Duration, ev evidence) string {
	deadline := time.Now().Add(limit)
	for {
		entries, err := r.view.entries(ctx)
		diff := ""
		if err != nil {
			diff = "read the server: " + err.Error()
		} else {
			diff = r.difference(entries, ev)
		}
		if diff == "" {
			return ""
		}
		if time.Now().After(deadline) {
			return fmt.Sprintf("not converged within %s: %s", limit, diff)
		}
		if err := proclab.Pause(ctx, 100*time.Millisecond); err != nil {
			return diff + ": " + err.Error()
		}
	}
}

// difference names the first note whose content differs between the
// server and a team directory, or an entry on the server that is no note.
func (r *rig) difference(server map[string]string, ev evidence) string {
	for _, key := range slices.Sorted(maps.Keys(server)) {
		if !slices.Contains(notes, key) {
			return fmt.Sprintf("the server holds %s, which no writer saved", key)
		}
	}
	for _, key := range notes {
		want := "absent"
		if v, ok := server[key]; ok {
			want = api.EntryChecksum(v)
		}
		for _, s := range r.sides {
			if got := fileSum(s.d.Dir, key); got != want {
				return fmt.Sprintf("%s: the server holds %s, %s's team directory %s", key, ev.describe(want), s.name, ev.describe(got))
			}
		}
	}
	return ""
}

// fileSum is the entry checksum of a note in dir, "absent", or why it
// cannot be read.
func fileSum(dir, key string) string {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "absent"
	case err != nil:
		return "unreadable (" + err.Error() + ")"
	}
	return api.EntryChecksum(string(data))
}

// describe names the save that wrote a checksum, if any.
func (ev evidence) describe(sum string) string {
	if sv, ok := ev.written[sum]; ok {
		return fmt.Sprintf("%s (%s's save #%d)", short(sum), sv.side, sv.seq)
	}
	if strings.HasPrefix(sum, api.ChecksumPrefix) {
		return short(sum) + " (written by no save)"
	}
	return sum
}

// short cuts a checksum to 12 hex digits for messages.
func short(sum string) string {
	if s, ok := strings.CutPrefix(sum, api.ChecksumPrefix); ok && len(s) > 12 {
		return "sha256:" + s[:12]
	}
	return sum
}

// gather reads the server's history of every note and both sides'
// conflict copies.
func (r *rig) gather(ctx context.Context, ev *evidence, t *tally) error {
	ev.history = map[string]map[string][]int64{}
	ev.revisions = map[string]int{}
	for _, key := range notes {
		revs, err := r.view.history(ctx, key)
		if err != nil {
			return err
		}
		ev.revisions[key] = len(revs)
		ev.history[key] = map[string][]int64{}
		for _, rev := range revs {
			if !rev.Deleted {
				ev.history[key][rev.Checksum] = append(ev.history[key][rev.Checksum], rev.Version)
			}
		}
	}
	copies, err := r.conflictCopies()
	if err != nil {
		return err
	}
	ev.conflicts = map[string]string{}
	for _, c := range copies {
		ev.conflicts[c.sum] = c.path
		t.conflictCopies++
		if _, ok := ev.written[c.sum]; !ok {
			t.violate("torn file: conflict copy %s (%d bytes, %s) is no version a writer saved whole; it starts %q; %s",
				c.path, len(c.data), short(c.sum), firstLine(c.data), r.savesBefore(c.side, c.path))
		}
	}
	return nil
}

// conflictCopy is one conflict copy a side's daemon made.
type conflictCopy struct {
	side      *side
	path, sum string
	data      []byte
}

// conflictCopies reads both sides' conflict copies.
func (r *rig) conflictCopies() ([]conflictCopy, error) {
	var out []conflictCopy
	for _, s := range r.sides {
		paths, err := s.d.ConflictCopies()
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("read conflict copy: %w", err)
			}
			out = append(out, conflictCopy{side: s, path: p, sum: api.EntryChecksum(string(data)), data: data})
		}
	}
	return out, nil
}

// savesBefore describes the side's last save that began before the file
// at p was written, for the evidence of a torn conflict copy.
func (r *rig) savesBefore(s *side, p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return "its time is unknown: " + err.Error()
	}
	at := fi.ModTime()
	var last *save
	for i := range s.w.saves {
		if sv := &s.w.saves[i]; !sv.start.After(at) {
			last = sv
		}
	}
	if last == nil {
		return fmt.Sprintf("it was written at %s, before %s's first save", r.at(at), s.name)
	}
	return fmt.Sprintf("it was written at %s; %s's save before it was #%d of %s, %s, from %s to %s",
		r.at(at), s.name, last.seq, last.key, saveHow(*last), r.at(last.start), r.at(last.end))
}

// account checks that every save of a side is in the server's history or
// a conflict copy, unless the writer overwrote it before the daemon had
// to read it, and that none was stored twice.
func (r *rig) account(s *side, ev evidence, t *tally) {
	up := s.up.snapshot(never)
	for i, sv := range s.w.saves {
		t.saves++
		versions := ev.history[sv.key][sv.sum]
		_, copied := ev.conflicts[sv.sum]
		if len(versions) > 1 {
			t.violate("duplicated: %s's save #%d of %s (%s) is in the server's history %d times, at versions %v",
				s.name, sv.seq, sv.key, short(sv.sum), len(versions), versions)
		}
		d := dutyOf(s.w.saves, i, up, r.tm, labels{at: r.at, sum: ev.describe})
		switch {
		case len(versions) > 0:
			t.inHistory++
		case copied:
			t.inConflict++
		case !d.required:
			t.excused++
		default:
			t.lost++
			t.violate("lost local edit: %s's save #%d of %s (%s, %s at %s) is neither in the server's history of %s (%d revisions) nor in a conflict copy (%d in all), and the daemon had to keep it: %s",
				s.name, sv.seq, sv.key, short(sv.sum), saveHow(sv), r.at(sv.end), sv.key, ev.revisions[sv.key], len(ev.conflicts), d.why)
		}
		if d.required {
			t.required++
		}
	}
}

func saveHow(sv save) string {
	if sv.inPlace {
		return "written in place"
	}
	return "renamed over the note"
}

// checkDir checks a team directory after convergence: every note a
// version some writer saved whole, no temporary file of the engine, and no
// file but the notes.
func (r *rig) checkDir(s *side, ev evidence, t *tally) {
	var litter []string
	err := filepath.WalkDir(s.d.Dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(s.d.Dir, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		switch {
		case strings.HasPrefix(e.Name(), ".teammemd-"):
			litter = append(litter, key)
		case !slices.Contains(notes, key):
			t.violate("extra file: %s's team directory holds %s, which no writer saved", s.name, key)
		default:
			r.checkNote(s, key, p, ev, t)
		}
		return nil
	})
	if err != nil {
		t.violate("walk %s's team directory: %v", s.name, err)
	}
	if len(litter) > 0 {
		t.violate("temp litter: %s's team directory holds %d temporary files of the engine after the final restart and settle: %s",
			s.name, len(litter), strings.Join(litter, ", "))
	}
}

// checkNote checks that a note holds a version of it a writer saved whole.
func (r *rig) checkNote(s *side, key, p string, ev evidence, t *tally) {
	data, err := os.ReadFile(p)
	if err != nil {
		t.violate("read %s's %s: %v", s.name, key, err)
		return
	}
	sum := api.EntryChecksum(string(data))
	if sv, ok := ev.written[sum]; !ok || sv.key != key {
		t.violate("torn file: %s's %s (%d bytes, %s) is no version of %s a writer saved whole; it starts %q",
			s.name, key, len(data), short(sum), key, firstLine(data))
	}
}

func firstLine(data []byte) string {
	line, _, _ := strings.Cut(string(data), "\n")
	if len(line) > 80 {
		line = line[:80]
	}
	return line
}

// report fails the test with every violation (the first 30) and logs the
// summary either way.
func (r *rig) report(t tally, summary string) {
	r.t.Helper()
	r.t.Logf("%s; settled in %s; saves %d, required %d, in history %d, in conflict copies %d, excused %d, lost %d; conflict copies %d",
		summary, t.settled.Round(100*time.Millisecond), t.saves, t.required, t.inHistory, t.inConflict, t.excused, t.lost, t.conflictCopies)
	for i, v := range t.violations {
		if i == 30 {
			r.t.Errorf("... and %d more violations", len(t.violations)-30)
			break
		}
		r.t.Error(v)
	}
}
