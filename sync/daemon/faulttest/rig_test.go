package faulttest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/internal/proclab/labtest"
	"github.com/teammemd/teammemd/sync/personal"
)

// proofRepo is the repo both daemons sync.
const proofRepo = "proof/notes"

// readyLimit bounds a daemon's first pull after a start.
const readyLimit = 30 * time.Second

// side is one teammate: a daemon, its writer and when the daemon was up.
type side struct {
	name  string
	token string
	d     *proclab.Daemon
	w     *writer
	// pw saves the owner's private notes in the memory directory, which
	// the personal lane sealed with key syncs.
	pw  *writer
	key *personal.Key
	up  uptime
}

// rig is a server, two daemons (alice and bob) on one repo and their
// writers, all real processes in one lab directory.
type rig struct {
	t      *testing.T
	tm     timing
	lab    *proclab.Lab
	server *proclab.Server
	view   serverView
	sides  []*side
	start  time.Time
	seed   uint64

	writers     sync.WaitGroup
	stopWriters context.CancelFunc
}

// newRig starts the server and creates a token for each side.
func newRig(ctx context.Context, t *testing.T, tm timing) *rig {
	t.Helper()
	lab, err := proclab.New(labDir(t), labtest.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	if err := lab.SetConfig(tm.config()); err != nil {
		t.Fatal(err)
	}
	srv, err := lab.StartServer(ctx, "server")
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, tm: tm, lab: lab, server: srv, start: time.Now(), seed: rand.Uint64()}
	t.Logf("writer seed %d", r.seed)
	for _, name := range []string{"alice", "bob"} {
		token, err := srv.CreateToken(ctx, name, "**")
		if err != nil {
			t.Fatal(err)
		}
		r.sides = append(r.sides, &side{name: name, token: token})
	}
	r.view = newServerView(srv.URL, r.sides[0].token, proofRepo)
	return r
}

// startDaemons starts both daemons against url and waits until each has
// pulled once.
func (r *rig) startDaemons(ctx context.Context, url string) {
	r.t.Helper()
	for _, s := range r.sides {
		d, err := r.lab.NewDaemon(ctx, proclab.DaemonSpec{Name: s.name, Server: url, Token: s.token, Repo: proofRepo, Claude: true})
		if err != nil {
			r.t.Fatal(err)
		}
		s.d = d
		r.preparePersonal(ctx, s, url)
		if err := d.Restart(); err != nil {
			r.t.Fatal(err)
		}
	}
	for _, s := range r.sides {
		if err := r.waitUp(ctx, s); err != nil {
			r.t.Fatal(err)
		}
	}
}

// waitUp waits for a started daemon's first pull and marks it up.
func (r *rig) waitUp(ctx context.Context, s *side) error {
	if err := s.d.WaitPulled(ctx, readyLimit); err != nil {
		return fmt.Errorf("%s: %w (log: %s)", s.name, err, s.d.Proc().LogTail())
	}
	if err := waitPersonal(ctx, s); err != nil {
		return err
	}
	s.up.markUp(time.Now())
	return nil
}

// startWriters starts a writer in each team directory.
func (r *rig) startWriters(ctx context.Context) {
	wctx, cancel := context.WithCancel(ctx)
	r.stopWriters = cancel
	for i, s := range r.sides {
		s.w = newWriter(s.name, s.d.Dir, r.seed+uint64(i), r.tm)
		s.pw = newWriter(personalSide(s.name), s.d.Memory, r.seed+uint64(len(r.sides)+i), r.tm)
		r.writers.Go(func() { s.w.run(wctx) })
		r.writers.Go(func() { s.pw.run(wctx) })
	}
}

// stopWriting stops the writers and waits for them.
func (r *rig) stopWriting() {
	r.t.Helper()
	r.stopWriters()
	r.writers.Wait()
	for _, s := range r.sides {
		for _, w := range []*writer{s.w, s.pw} {
			if w.failed != nil {
				r.t.Fatalf("writer: %v", w.failed)
			}
		}
	}
}

// crash kills a side's daemon with SIGKILL, leaves it down for down,
// restarts it and waits until it has pulled.
func (r *rig) crash(ctx context.Context, s *side, down time.Duration) error {
	if p := s.d.Proc(); p.Exited() {
		return fmt.Errorf("%s's daemon exited on its own before it was killed (log: %s)", s.name, p.LogTail())
	}
	s.up.markDown(time.Now())
	if err := s.d.Kill(); err != nil {
		return err
	}
	if err := proclab.Pause(ctx, down); err != nil {
		return err
	}
	if err := s.d.Restart(); err != nil {
		return err
	}
	return r.waitUp(ctx, s)
}

// at shows a time as seconds since the rig started.
func (r *rig) at(t time.Time) string { return fmt.Sprintf("+%.3fs", t.Sub(r.start).Seconds()) }

// randBetween returns a duration in [lo, hi).
func randBetween(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rng.Int64N(int64(hi-lo)))
}
