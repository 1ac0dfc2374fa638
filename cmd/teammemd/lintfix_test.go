package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
)

const (
	lintUserNote    = "---\nname: me\ndescription: how I like reviews\ntype: user\n---\nShort.\n"
	lintProjectNote = "---\nname: build\ndescription: how to build\ntype: project\n---\nmake\n"
)

// memoryTeamDir makes a Claude Code project's memory/team/ with a note of
// type user and a team note, and returns the team directory; no repo's
// state knows them.
func memoryTeamDir(t *testing.T) string {
	t.Helper()
	t.Setenv(envStateDir, t.TempDir())
	team := filepath.Join(t.TempDir(), "-src-app", "memory", "team")
	if err := os.MkdirAll(team, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"me.md": lintUserNote, "build.md": lintProjectNote} {
		if err := os.WriteFile(filepath.Join(team, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return team
}

func TestLintOffersAndFixesTheMove(t *testing.T) {
	team := memoryTeamDir(t)
	cfg := writeConfig(t, "")
	target := filepath.Join(filepath.Dir(team), "me.md")

	stdout, _, code := runCLI(t, "lint", "--dir", team, "--config", cfg)
	if code != exitFailure || !strings.Contains(stdout, "teammemd lint --fix moves it to your private memory, "+target) {
		t.Fatalf("lint = %d\n%s\nwant exit 1 and the move offered", code, stdout)
	}
	stdout, stderr, code := runCLI(t, "lint", "--fix", "--dir", team, "--config", cfg)
	if code != exitOK || !strings.Contains(stdout, "me.md: moved to "+target) {
		t.Fatalf("lint --fix = %d\n%s%s\nwant exit 0 and the move reported", code, stdout, stderr)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != lintUserNote {
		t.Errorf("%s = %q, %v; want the note", target, data, err)
	}
	if _, err := os.Stat(filepath.Join(team, "me.md")); !os.IsNotExist(err) {
		t.Errorf("team/me.md is still there (%v)", err)
	}
	if data, err := os.ReadFile(filepath.Join(team, "build.md")); err != nil || string(data) != lintProjectNote {
		t.Errorf("the team note changed: %q, %v", data, err)
	}
}

func TestLintFixRefusesAnExistingTarget(t *testing.T) {
	team := memoryTeamDir(t)
	cfg := writeConfig(t, "")
	target := filepath.Join(filepath.Dir(team), "me.md")
	if err := os.WriteFile(target, []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "lint", "--fix", "--json", "--dir", team, "--config", cfg)
	if code != exitFailure {
		t.Fatalf("lint --fix onto an existing file = %d, want 1\n%s%s", code, stdout, stderr)
	}
	var out lintJSON
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Moved) != 0 || len(out.Findings) != 1 || !strings.Contains(out.Findings[0].Message, target) ||
		!strings.Contains(out.Findings[0].Message, filepath.Join(team, "me.md")) {
		t.Errorf("lint --fix --json = %+v, want one finding naming both paths and no move", out)
	}
	if data, _ := os.ReadFile(target); string(data) != "mine\n" {
		t.Errorf("%s was overwritten: %q", target, data)
	}
	if data, _ := os.ReadFile(filepath.Join(team, "me.md")); string(data) != lintUserNote {
		t.Errorf("team/me.md changed: %q", data)
	}
}

// status offers the move for a note of type user the daemon holds back.
func TestStatusOffersTheMove(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	team := filepath.Join("/home/a/.claude/projects/-src-app/memory", "team")
	st := daemon.Status{Repos: []daemon.RepoStatus{{Repo: "acme/app", Dir: team, Server: "http://s", State: daemon.StateHeld,
		Held: []daemon.Held{{Path: "me.md", Reason: memsync.HeldPersonal}}}}}
	var b bytes.Buffer
	if err := printStatus(&b, st, now); err != nil {
		t.Fatal(err)
	}
	want := "teammemd lint --fix moves it to your private memory, " + filepath.Join(filepath.Dir(team), "me.md")
	if !strings.Contains(b.String(), want) {
		t.Errorf("printStatus = %q, want it to contain %q", b.String(), want)
	}
}

// A note of type user a teammate shared (share_user_notes) is on the
// team's server: lint --fix leaves it, since moving it out of the team
// directory would delete it for everyone.
func TestLintFixLeavesANoteTheServerHolds(t *testing.T) {
	srv := servertest.Start(t)
	t.Setenv(envToken, srv.Token)
	t.Setenv(envServer, srv.URL)
	t.Setenv("TEAMMEMD_CONFIG", "")
	sharer := t.TempDir()
	if err := os.WriteFile(filepath.Join(sharer, "me.md"), []byte(lintUserNote), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envStateDir, t.TempDir())
	shareCfg := writeConfig(t, "[client]\nshare_user_notes = true\n")
	if stdout, stderr, code := runCLI(t, "sync", "--dir", sharer, "--repo", "acme/app", "--config", shareCfg); code != 0 {
		t.Fatalf("sync of the sharer: exit %d\n%s%s", code, stdout, stderr)
	}

	// The teammate's state is where TEAMMEMD_STATE_DIR says, or where
	// --state-dir says, for sync and lint alike.
	for _, flag := range []bool{false, true} {
		team := filepath.Join(t.TempDir(), "-src-app", "memory", "team")
		if err := os.MkdirAll(team, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Setenv(envStateDir, t.TempDir())
		var stateArgs []string
		if flag {
			stateArgs = []string{"--state-dir", t.TempDir()}
		}
		cfg := writeConfig(t, "")
		if stdout, stderr, code := runCLI(t, append([]string{"sync", "--dir", team, "--repo", "acme/app", "--config", cfg}, stateArgs...)...); code != 0 {
			t.Fatalf("sync of the teammate: exit %d\n%s%s", code, stdout, stderr)
		}
		stdout, stderr, code := runCLI(t, append([]string{"lint", "--fix", "--dir", team, "--config", cfg}, stateArgs...)...)
		if code != exitFailure || !strings.Contains(stdout, "would delete it for the whole team") {
			t.Errorf("lint --fix %v on a note the server holds: exit %d\n%s%s\nwant 1 and the note left", stateArgs, code, stdout, stderr)
		}
		if data, err := os.ReadFile(filepath.Join(team, "me.md")); err != nil || string(data) != lintUserNote {
			t.Errorf("lint --fix %v: team/me.md = %q, %v; want it left in place", stateArgs, data, err)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(team), "me.md")); !os.IsNotExist(err) {
			t.Errorf("lint --fix %v: the note was copied to the private memory (%v)", stateArgs, err)
		}
	}
}
