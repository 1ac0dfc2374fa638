package main

import (
	"io"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/servertest"
)

// hookWith runs "teammemd hook" with args through run, stdin its input.
func hookWith(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	old := hookStdin
	hookStdin = func() io.Reader { return strings.NewReader(stdin) }
	defer func() { hookStdin = old }()
	return runCLI(t, append([]string{"hook"}, args...)...)
}

// TestHookSessionStart runs "teammemd hook session-start" as Claude Code
// does, on a checkout that "teammemd sync" synced: the index lists the
// note the team has and leaves out the one held back for its secret;
// outside a checkout it prints nothing, and with no server or a broken
// config one line; it exits 0 every time.
func TestHookSessionStart(t *testing.T) {
	isolateConfig(t)
	srv := servertest.Start(t)
	checkout, team := gitCheckout(t)
	t.Setenv("TEAMMEMD_SERVER", srv.URL)
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	t.Setenv("TEAMMEMD_STATE_DIR", t.TempDir())
	input := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":"` + checkout + `"}`

	stdout, stderr, code := hookWith(t, input, "session-start")
	if code != 0 || stdout != "teammemd: the team notes of acme/app are listed once the daemon has synced them on this machine (teammemd status shows how it is doing).\n" {
		t.Errorf("hook before a sync = %q (stderr %q), exit %d; want one line, exit 0", stdout, stderr, code)
	}

	key := scantest.AWSKey()
	writeTeamFile(t, team, "deploy.md", "---\nname: Deploy\ndescription: how we ship\ntype: project\n---\nmake release\n")
	writeTeamFile(t, team, "keys.md", scantest.AWSNote(key))
	t.Chdir(checkout)
	if _, stderr, code := runCLI(t, "sync"); code != 0 {
		t.Fatalf("sync exit %d, stderr %q", code, stderr)
	}
	t.Chdir(t.TempDir())
	stdout, stderr, code = hookWith(t, input, "session-start")
	for _, want := range []string{
		"Team memory of acme/app: notes shared with every teammate by teammemd, kept in " + team + "\n",
		"\n- deploy.md: Deploy - how we ship (local change ",
		"\n1 local note is not listed",
	} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("hook after a sync = %q (stderr %q), exit %d; want it to hold %q, exit 0", stdout, stderr, code, want)
		}
	}
	if strings.Contains(stdout, "keys.md") || strings.Contains(stdout, key) || strings.Contains(stdout, "make release") {
		t.Errorf("hook after a sync = %q, want no held-back note and no body", stdout)
	}

	tests := []struct {
		name, stdin, config, server, want string
	}{
		{"cwd outside a checkout", `{"cwd":"` + t.TempDir() + `"}`, "", srv.URL, ""},
		{"no server", input, "", "", "teammemd: team notes not listed: no server configured (teammemd doctor says how to set one)\n"},
		{"a broken config", input, writeConfig(t, "nope = 1\n"), srv.URL, "teammemd: team notes not listed: config "},
	}
	for _, tt := range tests {
		t.Setenv("TEAMMEMD_SERVER", tt.server)
		t.Setenv("TEAMMEMD_CONFIG", tt.config)
		stdout, stderr, code := hookWith(t, tt.stdin, "session-start")
		if code != 0 || !strings.HasPrefix(stdout, tt.want) || (tt.want == "") != (stdout == "") || strings.Count(stdout, "\n") > 1 {
			t.Errorf("hook with %s = %q (stderr %q), exit %d; want %q, exit 0", tt.name, stdout, stderr, code, tt.want)
		}
	}
}

// TestHookUsage: a hook it does not know, or arguments, are usage errors.
func TestHookUsage(t *testing.T) {
	isolateConfig(t)
	for _, args := range [][]string{{}, {"session-end"}, {"session-start", "extra"}, {"session-start", "--frob"}} {
		if _, _, code := hookWith(t, "", args...); code != 2 {
			t.Errorf("teammemd hook %s exit %d, want 2", strings.Join(args, " "), code)
		}
	}
}
