package linearizetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// Suite sizes. A run records fullOps operations, with or without the race
// detector (about 40 s under -race on two cores); TEAMMEMD_LINEARIZE_OPS
// sets a larger count. The broken server needs far fewer to be caught.
const (
	clients   = 16
	fullOps   = 10000
	brokenOps = 800
	// checkTimeout bounds porcupine's search; a history it cannot decide
	// in time fails the test.
	checkTimeout = 3 * time.Minute
)

// repos are the shared repos; each is checked on its own.
var repos = []string{"lin/one", "lin/two", "lin/three", "lin/four"}

// TestLinearizable checks that the server, the real handler on a real
// SQLite store, behaves as one copy of each repo whose operations happen
// one at a time, each at some moment between its call and its answer.
func TestLinearizable(t *testing.T) {
	ops := fullOps
	if v := os.Getenv("TEAMMEMD_LINEARIZE_OPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < fullOps {
			t.Fatalf("TEAMMEMD_LINEARIZE_OPS=%q: want a whole number of at least %d", v, fullOps)
		}
		ops = n
	}
	start := time.Now()
	history := record(t, ops, nil)
	ran := time.Since(start)
	res, info := porcupine.CheckOperationsVerbose(repoModel, history, checkTimeout)
	t.Logf("%d operations (%s) by %d clients on %d repos in %s, checked in %s: %s",
		len(history), mix(history), clients, len(repos), ran.Round(100*time.Millisecond), (time.Since(start) - ran).Round(100*time.Millisecond), res)
	if res != porcupine.Ok {
		t.Errorf("porcupine says the history is %s, want %s; %s", res, porcupine.Ok, visualize(t, info))
	}
}

// TestBrokenIfMatchCaught runs the same clients against a server whose
// store never sees If-Match, so stale PUTs overwrite newer ones: the check
// must call that history illegal, or it proves nothing.
func TestBrokenIfMatchCaught(t *testing.T) {
	start := time.Now()
	history := record(t, brokenOps, func(st store.Store) store.Store { return ifMatchIgnored{st} })
	ran := time.Since(start)
	res, _ := porcupine.CheckOperationsVerbose(repoModel, history, checkTimeout)
	t.Logf("%d operations against the broken server in %s, checked in %s: %s",
		len(history), ran.Round(100*time.Millisecond), (time.Since(start) - ran).Round(100*time.Millisecond), res)
	if res != porcupine.Illegal {
		t.Errorf("porcupine says the broken server's history is %s, want %s: the check does not catch a skipped If-Match", res, porcupine.Illegal)
	}
}

// ifMatchIgnored is a store that drops every write's If-Match: the server
// above it skips the precondition check. It exists only in this test.
type ifMatchIgnored struct{ store.Store }

func (s ifMatchIgnored) Apply(ctx context.Context, w store.Write) (store.Result, error) {
	w.IfMatch = ""
	return s.Store.Apply(ctx, w)
}

// record runs the workload against a fresh server, its store wrapped by
// wrap when set, and returns the history.
func record(t *testing.T, ops int, wrap func(store.Store) store.Store) []porcupine.Operation {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	base, token := serve(ctx, t, wrap)
	seed := rand.Uint64()
	t.Logf("workload seed %d", seed)
	wl := workload{clients: clients, opsPerClient: (ops + clients - 1) / clients, repos: repos, seed: seed}
	history, err := wl.run(ctx, base, token)
	if err != nil {
		t.Fatal(err)
	}
	return history
}

// serve runs the real server on a SQLite file in t.TempDir() on a
// 127.0.0.1 port until the test ends, and returns its URL and a token.
func serve(ctx context.Context, t *testing.T, wrap func(store.Store) store.Store) (string, string) {
	t.Helper()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	secret, rec, err := auth.NewTokenRecord("linearize", []store.Grant{{Pattern: "**", Level: store.LevelWrite}}, time.Now())
	if err == nil {
		err = st.CreateToken(ctx, rec)
	}
	if err != nil {
		t.Fatal(err)
	}
	var s store.Store = st
	if wrap != nil {
		s = wrap(st)
	}
	settings, err := servertest.Config().Settings()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Store: s, Auth: auth.NewTokenAuthenticator(st), Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(sctx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		st.Close()
	})
	return "http://" + ln.Addr().String(), secret
}

// mix counts a history's operations by kind and answer.
func mix(history []porcupine.Operation) string {
	n := map[string]int{}
	for _, op := range history {
		n[fmt.Sprintf("%s %d", op.Input.(input).op, op.Output.(output).status)]++
	}
	return fmt.Sprintf("full pulls %d, hash probes %d, PUTs %d stored and %d refused with 412",
		n["get 200"]+n["get 404"], n["hashes 200"]+n["hashes 404"], n["put 200"], n["put 412"])
}

// visualize writes porcupine's view of a failed check to the test's
// artifact directory and says where.
func visualize(t *testing.T, info porcupine.LinearizationInfo) string {
	path := filepath.Join(t.ArtifactDir(), "linearizability.html")
	if err := porcupine.VisualizePath(repoModel, info, path); err != nil {
		return "cannot draw the history: " + err.Error()
	}
	return "the history is drawn in " + path + " (kept with go test -artifacts)"
}
