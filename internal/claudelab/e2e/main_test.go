package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/claudelab"
	"github.com/teammemd/teammemd/internal/proclab/labtest"
)

// gateEnv turns the tests on; CI sets it to 1.
const gateEnv = "TEAMMEMD_TEST_CLAUDE"

// fetchTimeout bounds fetching every build the tests run (about 400 MB on
// an empty cache).
const fetchTimeout = 6 * time.Minute

// builds are the client releases the tests run: the last Node.js release
// that predates the memory stores, the first native release the tests
// pinned, and the newest when they were written.
var builds = []claudelab.Build{
	{Version: "2.1.88", Node: true},
	{Version: "2.1.328"},
	{Version: "2.1.332"},
}

// TestMain runs the tests as they are when the gate is off (they skip),
// and otherwise in a network namespace of their own that has nothing but
// loopback: it fetches the builds into the cache first, while there is a
// network, then runs this test binary again in the namespace.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv(gateEnv) != "1":
		labtest.Main(m)
	case claudelab.Isolated():
		if err := claudelab.LoopbackUp(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
			os.Exit(1)
		}
		labtest.Main(m)
	default:
		os.Exit(runIsolated())
	}
}

// runIsolated fetches the builds, then runs this test binary with the same
// arguments in a network namespace of its own and returns its exit
// status.
func runIsolated() int {
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	if err := fetchBuilds(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %s=1 needs the Claude Code builds: %v\n", gateEnv, err)
		return 1
	}
	cmd := exec.Command(os.Args[0], os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := claudelab.Isolate(cmd); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintf(os.Stderr, "FAIL: run the tests in a network namespace of their own (as root): %v\n", err)
		return 1
	}
	return 0
}

// fetchBuilds puts every build into the cache, from the npm registry
// where the cache lacks it.
func fetchBuilds(ctx context.Context) error {
	f, err := fetcher()
	if err != nil {
		return err
	}
	for _, b := range builds {
		start := time.Now()
		if _, err := f.Cached(b.Package()); err == nil {
			continue
		}
		if _, err := f.Fetch(ctx, b.Package()); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "fetched %s into %s in %s\n", b.Package(), f.Cache, time.Since(start).Round(time.Second))
	}
	return nil
}

// fetcher fetches from the npm registry into the default cache.
func fetcher() (claudelab.Fetcher, error) {
	cache, err := claudelab.DefaultCache()
	if err != nil {
		return claudelab.Fetcher{}, err
	}
	return claudelab.Fetcher{Registry: claudelab.Registry, Cache: cache}, nil
}

// installClient puts a claude command for build, from the cache, into
// binDir and returns its path.
func installClient(t *testing.T, build claudelab.Build, binDir string) string {
	t.Helper()
	f, err := fetcher()
	if err != nil {
		t.Fatal(err)
	}
	pkgDir, err := f.Cached(build.Package())
	if err != nil {
		t.Fatal(err)
	}
	claude, err := build.Install(pkgDir, binDir)
	if err != nil {
		t.Fatal(err)
	}
	return claude
}
