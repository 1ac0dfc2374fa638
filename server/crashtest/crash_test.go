package crashtest

import (
	"context"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/internal/proclab/labtest"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// Server crash suite bounds: CI kills the server this many times; long
// runs set TEAMMEMD_SERVER_KILLS (e.g. 50).
const (
	ciServerKills = 3
	stormWriters  = 16
)

// serverConfig turns off what would slow the storm or refuse its writes:
// the secret scan (its values hold no secrets) and the rate limit.
const serverConfig = "[server]\nscan_secrets = false\n\n[server.rate_limit]\nrequests_per_second = -1\n"

// TestServerCrash kills teammemd serve with SIGKILL during a storm of
// If-Match PUTs from 16 writers, checks the database file's integrity,
// restarts the server on it, and checks that every acknowledged write is
// in the history and no PUT is visible in part; again and again.
func TestServerCrash(t *testing.T) {
	kills := labtest.EnvCount(t, "TEAMMEMD_SERVER_KILLS", ciServerKills)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(kills)*30*time.Second+2*time.Minute)
	defer cancel()
	s := newStorm(ctx, t)
	start := time.Now()
	done := 0
	for done < kills && !t.Failed() {
		done++
		s.round(ctx, t, done)
	}
	s.summary(t, done, time.Since(start))
}

// storm is the server, its writers and their seed.
type storm struct {
	srv     *proclab.Server
	read    reader
	writers []*stormWriter
	rng     *rand.Rand
}

func newStorm(ctx context.Context, t *testing.T) *storm {
	t.Helper()
	lab, err := proclab.New(t.TempDir(), labtest.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	if err := lab.SetConfig(serverConfig); err != nil {
		t.Fatal(err)
	}
	srv, err := lab.StartServer(ctx, "server")
	if err != nil {
		t.Fatal(err)
	}
	token, err := srv.CreateToken(ctx, "storm", "**")
	if err != nil {
		t.Fatal(err)
	}
	seed := rand.Uint64()
	t.Logf("storm seed %d", seed)
	s := &storm{srv: srv, read: reader{base: srv.URL, token: token, client: &http.Client{}}, rng: rand.New(rand.NewPCG(seed, 0))}
	for i := range stormWriters {
		s.writers = append(s.writers, newStormWriter(i+1, srv.URL, token, seed))
	}
	return s
}

// round runs the storm for a random moment, kills the server, checks the
// file, restarts the server and audits every repo.
func (s *storm) round(ctx context.Context, t *testing.T, round int) {
	t.Helper()
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, w := range s.writers {
		wg.Go(func() { w.run(wctx) })
	}
	pauseErr := proclab.Pause(ctx, 300*time.Millisecond+time.Duration(s.rng.Int64N(int64(1200*time.Millisecond))))
	killErr := s.srv.Kill()
	stop()
	wg.Wait()
	if err := cmpErr(pauseErr, killErr); err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	complaints, err := integrityCheck(ctx, filepath.Join(s.srv.Data, sqlite.FileName))
	if err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	for _, c := range complaints {
		t.Errorf("round %d: database integrity check after the kill: %s", round, c)
	}
	if err := s.srv.Restart(ctx); err != nil {
		t.Fatalf("round %d: restart: %v", round, err)
	}
	s.auditAll(ctx, t, round)
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// auditAll audits every repo against every PUT sent so far.
func (s *storm) auditAll(ctx context.Context, t *testing.T, round int) {
	t.Helper()
	byRepo := map[string][]put{}
	for _, w := range s.writers {
		for _, p := range w.puts {
			byRepo[p.repo] = append(byRepo[p.repo], p)
			if p.status != 0 && p.status != http.StatusOK && p.status != http.StatusPreconditionFailed {
				t.Errorf("round %d: %s got HTTP %d, want 200 or 412", round, p, p.status)
			}
		}
	}
	for _, repo := range stormRepos {
		v, err := s.read.view(ctx, repo)
		if err != nil {
			t.Fatalf("round %d: read %s after the restart: %v", round, repo, err)
		}
		for i, bad := range audit(repo, v, byRepo[repo]) {
			if i == 20 {
				t.Errorf("round %d: %s: ... and more", round, repo)
				break
			}
			t.Errorf("round %d: %s: %s", round, repo, bad)
		}
	}
}

// summary logs what the storm did, for docs/RELIABILITY.md.
func (s *storm) summary(t *testing.T, kills int, took time.Duration) {
	n := map[string]int{}
	for _, w := range s.writers {
		for _, p := range w.puts {
			n[p.outcome]++
		}
	}
	t.Logf("%d kills, each followed by the integrity check, a restart and the audit; %d writers; PUTs acknowledged %d, refused with 412 %d, unanswered (in flight at a kill or while the server was down) %d; in %s",
		kills, len(s.writers), n[acked], n[refused], n[unknown], took.Round(time.Second))
}
