// Package labtest is what the suites that run teammemd in a proclab.Lab
// share: the one build of teammemd per test binary, removed once the
// tests have run, and the environment variables that set how long a
// suite's long mode runs.
package labtest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
)

// buildTimeout bounds the one build of teammemd a test binary makes.
const buildTimeout = 10 * time.Minute

// built is the teammemd a test binary builds the first time a test needs
// it, in a temporary directory Main removes.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// Binary returns teammemd built from the module under test, building it
// the first time a test of the test binary asks. The package's TestMain
// must run its tests through Main, which removes it.
func Binary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "teammemd-lab-"); built.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		built.bin = filepath.Join(built.dir, "teammemd")
		built.err = proclab.Build(ctx, built.bin, "")
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// Main runs the tests, removes the teammemd that Binary built, and exits
// with the tests' status.
func Main(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// EnvCount reads a whole number of at least 1 from the environment
// variable name, def when it is unset: how long a suite's long mode runs.
func EnvCount(t testing.TB, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a whole number of at least 1", name, v)
	}
	return n
}

// EnvDuration reads a positive duration from the environment variable
// name, def when it is unset.
func EnvDuration(t testing.TB, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want a positive duration such as 5m", name, v)
	}
	return d
}
