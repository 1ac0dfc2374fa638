package faulttest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest/proclab"
)

// binDir holds the teammemd binary every test of the package runs; TestMain
// removes it.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "teammemd-faulttest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "faulttest:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildOnce builds teammemd the first time a test needs it.
var buildOnce = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "teammemd")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	return bin, proclab.Build(ctx, bin, "")
})

// binary returns the built teammemd.
func binary(t *testing.T) string {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// labDir is t.TempDir(), or with TEAMMEMD_PROOF_KEEP=1 a directory that
// outlives the test, for its logs, state and team directories.
func labDir(t *testing.T) string {
	t.Helper()
	if os.Getenv("TEAMMEMD_PROOF_KEEP") != "1" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "teammemd-proof-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("keeping the lab in %s", dir)
	return dir
}

// envInt reads a positive count from the environment, def when unset.
func envInt(t *testing.T, name string, def int) int {
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

// envDuration reads a positive duration from the environment, def when
// unset.
func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
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
