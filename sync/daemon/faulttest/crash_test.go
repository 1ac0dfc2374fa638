package faulttest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/internal/proclab/labtest"
	"github.com/teammemd/teammemd/sync/daemon"
)

// Crash suite bounds: CI kills the daemons this many times; long runs set
// TEAMMEMD_CRASH_KILLS (e.g. 200).
const (
	ciKills     = 10
	crashSettle = 60 * time.Second
)

// TestDaemonCrash kills the daemons with SIGKILL at random points while
// both teammates save notes, half the time while one is pushing or
// pulling, restarts them each time, and checks afterwards that no save was
// lost, no file is torn, no temporary file is left and both sides and the
// server agree.
func TestDaemonCrash(t *testing.T) {
	kills := labtest.EnvCount(t, "TEAMMEMD_CRASH_KILLS", ciKills)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(kills)*10*time.Second+3*time.Minute)
	defer cancel()
	r := newRig(ctx, t, suiteTiming)
	r.startDaemons(ctx, r.server.URL)
	r.startWriters(ctx)
	k := killer{r: r, rng: rand.New(rand.NewPCG(r.seed, 0xc0ffee)), during: map[string]int{}}
	err := k.run(ctx, kills)
	r.stopWriting()
	if err != nil {
		t.Fatalf("after %d kills: %v", k.kills, err)
	}
	if err := k.finalCrash(ctx); err != nil {
		t.Fatalf("final kill and restart: %v", err)
	}
	res := r.verify(ctx, crashSettle)
	r.report(res, fmt.Sprintf("%d kills (pushing %d, pulling %d, elsewhere %d) in %s",
		k.kills, k.during[daemon.StatePushing], k.during[daemon.StatePulling], k.during[""], time.Since(r.start).Round(time.Second)))
}

// killer kills and restarts the daemons of a rig.
type killer struct {
	r      *rig
	rng    *rand.Rand
	kills  int
	during map[string]int // what the daemon was doing when killed; "" unknown
}

// run kills a random daemon n times, each after a random pause, half the
// time aimed at a push or pull in progress.
func (k *killer) run(ctx context.Context, n int) error {
	for range n {
		if err := proclab.Pause(ctx, randBetween(k.rng, 100*time.Millisecond, 1200*time.Millisecond)); err != nil {
			return err
		}
		s := k.r.sides[k.rng.IntN(len(k.r.sides))]
		doing := ""
		if k.rng.IntN(2) == 0 {
			doing = k.aim(ctx, s)
		}
		if err := k.r.crash(ctx, s, randBetween(k.rng, 0, 300*time.Millisecond)); err != nil {
			return err
		}
		k.kills++
		k.during[doing]++
	}
	return nil
}

// aim polls the daemon's status for up to 2 s until it pushes or pulls,
// and returns which; "" when neither was seen.
func (k *killer) aim(ctx context.Context, s *side) string {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		st, err := s.d.Status(ctx)
		if err == nil && (st.State == daemon.StatePushing || st.State == daemon.StatePulling) {
			return st.State
		}
		if proclab.Pause(ctx, 2*time.Millisecond) != nil {
			return ""
		}
	}
	return ""
}

// finalCrash kills both daemons once the writers have stopped, while they
// may still be pushing the last saves, and restarts them.
func (k *killer) finalCrash(ctx context.Context) error {
	for _, s := range k.r.sides {
		if err := proclab.Pause(ctx, randBetween(k.rng, 0, k.r.tm.debounce+200*time.Millisecond)); err != nil {
			return err
		}
		if err := k.r.crash(ctx, s, 0); err != nil {
			return err
		}
		k.kills++
		k.during[""]++
	}
	return nil
}
