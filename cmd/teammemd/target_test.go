package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

// lint, and the commands that settle or read one repo, find their repo as
// the daemon runs it, outside any git checkout: with one repo in the
// config, anywhere; with several, the one whose team directory holds the
// current directory; else an error that lists them and names the
// command's own flags. (record.txtar settles a conflict copy this way.)
func TestRepoFoundInConfig(t *testing.T) {
	isolateConfig(t)
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := filepath.Join(work, "alice"), filepath.Join(work, "bob")
	for _, d := range []string{alice, bob} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	one := writeConfig(t, fmt.Sprintf("[[daemon.repo]]\ndir = %q\nrepo = \"acme/app\"\n", bob))
	two := writeConfig(t, fmt.Sprintf("[[daemon.repo]]\ndir = %q\nrepo = \"acme/app\"\n[[daemon.repo]]\ndir = %q\nrepo = \"acme/web\"\n", bob, alice))
	none := writeConfig(t, "")
	tests := []struct {
		name, cwd, config string
		args              []string
		code              int
		out               string // a pattern stdout or stderr must match
	}{
		{"lint, one repo in the config", work, one, []string{"lint"}, 0, `(?m)bob: no findings$`},
		{"lint in one of two team directories", alice, two, []string{"lint"}, 0, `(?m)alice: no findings$`},
		{"lint outside both", work, two, []string{"lint"}, 2,
			`the config names 2 repos and the current directory is in none of them: run this in one's checkout or team directory, or pass --dir; the repos: acme/app \(.*bob\), acme/web \(.*alice\)`},
		{"resolve outside both", work, two, []string{"conflicts", "resolve", "deploy.md", "--keep", "local"}, 2,
			`or pass --dir and --repo; the repos: `},
		{"lint, no repo anywhere", work, none, []string{"lint"}, 2, `and the config names no repo \(or pass --dir\)`},
	}
	for _, tt := range tests {
		t.Chdir(tt.cwd)
		t.Setenv("TEAMMEMD_CONFIG", tt.config)
		stdout, stderr, code := runCLI(t, tt.args...)
		if code != tt.code || !regexp.MustCompile(tt.out).MatchString(stdout+stderr) {
			t.Errorf("%s: exit %d\n%s%s\nwant exit %d and %s", tt.name, code, stdout, stderr, tt.code, tt.out)
		}
		if tt.args[0] == "lint" && strings.Contains(stderr, "--repo") {
			t.Errorf("%s: the hint names --repo, which lint has not: %s", tt.name, stderr)
		}
	}
}

// In a Claude Code project's team directory, with no config at all (the
// server and token from the environment), a one-repo command finds the
// project's repo as discovery maps it back to its checkout.
func TestRepoFoundFromClaudeTeamDir(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: install git to run the tests on git checkouts (.ci/run does)")
	}
	isolateConfig(t)
	base, home := claudetest.Home(t)
	checkout := claudetest.Checkout(t, filepath.Join(base, "src", "app"), "git@github.com:acme/app.git")
	team := claudetest.ProjectDir(t, home, checkout, claudetest.CwdLine(t, checkout))
	t.Setenv("TEAMMEMD_CONFIG", writeConfig(t, ""))
	t.Chdir(team)
	target, err := findTarget(syncFlags{}, Config{}, "pass --dir")
	if err != nil || target.repo != "acme/app" || target.dir != team {
		t.Errorf("findTarget in %s = %+v, %v; want acme/app in that directory", team, target, err)
	}
}
