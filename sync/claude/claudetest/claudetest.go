// Package claudetest makes what Claude Code's layout is found from, for
// tests: git checkouts with an origin remote, and Claude Code project
// directories with their team directory and a session transcript.
package claudetest

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/sync/claude"
)

// Git runs git in dir, with no user or system config and a fixed author,
// and fails the test when git fails.
func Git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// Checkout makes dir a git checkout whose origin remote is remote, and
// returns dir. It skips the test when git is not installed.
func Checkout(t testing.TB, dir, remote string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: install git to run the tests on git checkouts (.ci/run does)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q")
	Git(t, dir, "remote", "add", "origin", remote)
	return dir
}

// Home returns a new temporary directory, symlinks resolved as git
// reports paths, and Claude Code's config directory in it, which
// $CLAUDE_CONFIG_DIR names for the rest of the test.
func Home(t testing.TB) (base, home string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home = filepath.Join(base, "claude")
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	return base, home
}

// ProjectDir creates the project directory Claude Code keeps for the
// checkout root under home, with its team directory and, when lines are
// given, one session transcript holding them. It returns the team
// directory.
func ProjectDir(t testing.TB, home, root string, lines ...string) string {
	t.Helper()
	team := claude.TeamDir(home, root)
	if err := os.MkdirAll(team, 0o755); err != nil {
		t.Fatal(err)
	}
	if len(lines) > 0 {
		transcript := filepath.Join(filepath.Dir(filepath.Dir(team)), "0b5c2f7e-session.jsonl")
		if err := os.WriteFile(transcript, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return team
}

// CwdLine is a transcript line of a session run in cwd.
func CwdLine(t testing.TB, cwd string) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"type": "user", "cwd": cwd, "sessionId": "0b5c2f7e"})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// FakeClient writes an executable named claude that answers --version and
// "auth status --json" as a Claude Code client of version v with login
// method (an authMethod: api_key, claude.ai...) would, and returns its
// path. The shipped client itself is what internal/claudelab runs.
func FakeClient(t testing.TB, v, method string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "claude")
	script := "#!/bin/sh\ncase \"$1\" in\n--version) echo '" + v + " (Claude Code)';;\n" +
		"auth) echo '{\"loggedIn\":true,\"authMethod\":\"" + method + "\",\"apiProvider\":\"firstParty\"}';;\n*) exit 3;;\nesac\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteNote writes content as key's file in the team directory dir, its
// directories made as needed, as an editor would.
func WriteNote(t testing.TB, dir, key, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadNote returns key's content in the team directory dir, "<missing>"
// when there is no such file.
func ReadNote(t testing.TB, dir, key string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
	if errors.Is(err, fs.ErrNotExist) {
		return "<missing>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
