package main

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/scan"
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
// user (mode 0755), as the build under test: with -tags gore2regex when
// the tests run with it, so the RE2 build's run tests an RE2 binary.
func goBuild(dir string, flags ...string) (string, error) {
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "teammemd")
	args := append([]string{"build", "-o", path}, flags...)
	if scan.Engine() == "re2" {
		args = append(args, "-tags", "gore2regex")
	}
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

// The binary the tests build is the build under test: the RE2 build in a
// run with -tags gore2regex, the default build otherwise.
func TestBuiltBinaryIsTheBuildUnderTest(t *testing.T) {
	info, err := buildinfo.ReadFile(teammemdBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(info.Settings, func(s debug.BuildSetting) bool { return s.Key == "-tags" })
	tags := ""
	if i >= 0 {
		tags = info.Settings[i].Value
	}
	if got, want := strings.Contains(tags, "gore2regex"), scan.Engine() == "re2"; got != want {
		t.Errorf("built binary's tags %q, want gore2regex %v as the tests' scan engine is %s", tags, want, scan.Engine())
	}
}
