package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// builtBinary is the teammemd binary one test built for all, removed by
// TestMain when the tests end.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// teammemdBinary builds teammemd from this package once per test run, in a
// directory every user may read and search, and returns its path.
func teammemdBinary(t *testing.T) string {
	t.Helper()
	builtBinary.once.Do(func() {
		builtBinary.dir, builtBinary.err = os.MkdirTemp("", "teammemd-bin")
		if builtBinary.err != nil {
			return
		}
		builtBinary.path, builtBinary.err = goBuild(builtBinary.dir)
	})
	if builtBinary.err != nil {
		t.Fatalf("build teammemd: %v", builtBinary.err)
	}
	return builtBinary.path
}

// removeBuiltBinary deletes the binary teammemdBinary built, if any.
func removeBuiltBinary() {
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
}

// buildTeammemd builds teammemd with extra go build flags into a directory
// of this test.
func buildTeammemd(t *testing.T, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	path, err := goBuild(dir, flags...)
	if err != nil {
		t.Fatalf("build teammemd %v: %v", flags, err)
	}
	return path
}

// goBuild builds this package into dir/teammemd, with dir opened to every
// user (mode 0755).
func goBuild(dir string, flags ...string) (string, error) {
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "teammemd")
	args := append([]string{"build", "-o", path}, flags...)
	cmd := exec.Command("go", append(args, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{err: err, out: string(out)}
	}
	return path, nil
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }
