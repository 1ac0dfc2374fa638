package faulttest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/server/api"
)

// notes are the keys both writers save, some in nested directories.
var notes = []string{"MEMORY.md", "deploy.md", "runbooks/oncall.md", "runbooks/db/restore.txt"}

// save is one version of a note that a writer wrote whole.
type save struct {
	side    string
	key     string
	seq     int    // the writer's count, from 1
	sum     string // api.EntryChecksum of the content
	inPlace bool   // truncated and rewritten in place, not renamed over
	// overwrote is the checksum of what the note held just before this
	// save ("absent" when there was none): when it is not the side's
	// previous save of the note, the daemon replaced that save meanwhile.
	overwrote string
	// start is just before the write began, end just after it finished.
	start, end time.Time
}

// writer saves versions of the notes in one team directory the way
// editors do: most often a new file renamed over the note, sometimes the
// note truncated and rewritten in place. Between saves it pauses either
// briefly (within the debounce, so the daemon never sees a quiet
// directory) or long (past debounce plus slack, so the daemon must act).
type writer struct {
	side   string
	dir    string
	rng    *rand.Rand
	brief  time.Duration // pauses in [0, brief)
	long   time.Duration // pauses in [long, long+longJitter)
	saves  []save        // the writer goroutine's until run returns
	failed error
}

// longJitter spreads the long pauses.
const longJitter = 600 * time.Millisecond

// longShare is the share of pauses that are long.
const longShare = 0.35

func newWriter(side, dir string, seed uint64, tm timing) *writer {
	return &writer{
		side: side, dir: dir, rng: rand.New(rand.NewPCG(seed, 0x5eed)),
		brief: tm.debounce / 2, long: tm.debounce + tm.slack,
	}
}

// run saves until ctx is done. A failed write ends it and is kept in
// failed.
func (w *writer) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := w.saveOne(); err != nil {
			w.failed = err
			return
		}
		if proclab.Pause(ctx, w.pause()) != nil {
			return
		}
	}
}

func (w *writer) pause() time.Duration {
	if w.rng.Float64() < longShare {
		return w.long + time.Duration(w.rng.Int64N(int64(longJitter)))
	}
	return time.Duration(w.rng.Int64N(int64(w.brief)))
}

// saveOne writes the next version of a random note and records it.
func (w *writer) saveOne() error {
	s := save{side: w.side, key: notes[w.rng.IntN(len(notes))], seq: len(w.saves) + 1, inPlace: w.rng.IntN(3) == 0}
	data := w.content(s)
	s.sum = api.EntryChecksum(data)
	full := filepath.Join(w.dir, filepath.FromSlash(s.key))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return fmt.Errorf("%s: create the directory of %s: %w", w.side, s.key, err)
	}
	s.overwrote = fileSum(w.dir, s.key)
	s.start = time.Now()
	var err error
	if s.inPlace {
		err = writeInPlace(full, data)
	} else {
		err = writeRenamed(full, fmt.Sprintf(".%s.%s%d.tmp", path.Base(s.key), w.side, s.seq), data)
	}
	s.end = time.Now()
	if err != nil {
		return fmt.Errorf("%s: save %d of %s: %w", w.side, s.seq, s.key, err)
	}
	w.saves = append(w.saves, s)
	return nil
}

// content is a version of a note that no other save repeats, a few lines
// to a few KB of plain words (nothing a secret scanner would hold back).
func (w *writer) content(s save) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s saved version %d of this note.\n\n", s.key, s.side, s.seq)
	for i := range 2 + w.rng.IntN(40) {
		fmt.Fprintf(&b, "- %s, version %d, line %d: run the checks before every deploy.\n", s.side, s.seq, i+1)
	}
	return b.String()
}

// writeInPlace truncates the file and writes data in one call, as an
// editor that saves in place does.
func writeInPlace(name, data string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeRenamed writes data to a hidden temporary file next to name and
// renames it over name, as most editors save.
func writeRenamed(name, tmpBase, data string) error {
	tmp := filepath.Join(filepath.Dir(name), tmpBase)
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
