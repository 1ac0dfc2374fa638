package route

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

func client(v, method string) Client {
	c := Client{Path: "/usr/bin/claude", Login: Login{Method: method}}
	if v != "" {
		c.Version = semver.MustParse(v)
	}
	return c
}

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		name    string
		c       Client
		w       Want
		route   Route
		traffic bool
		err     string
	}{
		{"current client, no consent", client("2.1.328", "api_key"), Want{}, Hook, false, ""},
		{"current client, consent", client("2.1.328", "claude.ai"), Want{TrafficOff: true}, Stores, true, ""},
		{"stores asked without consent", client("2.1.332", "api_key"), Want{Route: Stores}, "", false, "disable-client-traffic"},
		{"stores on an old client", client("2.1.88", "api_key"), Want{Route: Stores, TrafficOff: true}, "", false, "2.1.210"},
		{"old client, consent", client("2.1.88", "claude.ai"), Want{TrafficOff: true}, Hook, true, ""},
		{"old client, claude.ai login, no consent", client("2.1.150", "claude.ai"), Want{}, "", false, "uploads memory/team/"},
		{"old client, API key", client("2.1.150", "api_key"), Want{}, Hook, false, ""},
		{"current client, claude.ai login, no consent", client("2.1.328", "claude.ai"), Want{}, Hook, false, ""},
		{"hook asked, consent", client("2.1.328", "api_key"), Want{Route: Hook, TrafficOff: true}, Hook, true, ""},
		{"no client", Client{Err: errors.New("none")}, Want{}, Hook, false, ""},
		{"no client, stores", Client{}, Want{Route: Stores, TrafficOff: true}, "", false, "2.1.210"},
		{"before hooks", client("1.0.10", "api_key"), Want{}, "", false, "predates"},
		{"unknown route", client("2.1.328", ""), Want{Route: "mcp"}, "", false, "unknown route"},
	} {
		ch, err := Choose(tc.c, tc.w)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: Choose = %v, want an error with %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || ch.Route != tc.route || ch.TrafficOff != tc.traffic || len(ch.Why) == 0 {
			t.Errorf("%s: Choose = %+v, %v; want route %s, traffic off %v", tc.name, ch, err, tc.route, tc.traffic)
		}
	}
}

func TestParseVersion(t *testing.T) {
	for out, want := range map[string]string{"2.1.328 (Claude Code)\n": "2.1.328", "2.1.88 (Claude Code)": "2.1.88", "": "", "Claude Code": "", "2.1": ""} {
		v, err := ParseVersion([]byte(out))
		got := ""
		if err == nil {
			got = v.String()
		}
		if got != want {
			t.Errorf("ParseVersion(%q) = %q, %v; want %q", out, got, err, want)
		}
	}
}

func TestFind(t *testing.T) {
	c := Find(context.Background(), claudetest.FakeClient(t, "2.1.331", "claude.ai"))
	if c.Err != nil || c.Version.String() != "2.1.331" || !c.Login.Uploads() {
		t.Errorf("Find = %+v, want 2.1.331 with a claude.ai login", c)
	}
	c = Find(context.Background(), filepath.Join(t.TempDir(), "missing"))
	if c.Err == nil || c.Version != nil {
		t.Errorf("Find(missing) = %+v, want an error", c)
	}
	t.Setenv("PATH", t.TempDir())
	if c := Find(context.Background(), ""); c.Path != "" || c.Err == nil {
		t.Errorf("Find with no claude on PATH = %+v, want none", c)
	}
}

func TestInspect(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "teammemd")
	writeTestFile(t, bin, "#!/bin/sh\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	hookSettings := func(bin string) string {
		return `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"` + bin + ` hook session-start"}]}]}}`
	}
	hookOnly := hookSettings(bin)
	plain := filepath.Join(t.TempDir(), "teammemd")
	writeTestFile(t, plain, "not a program")
	stores := `{"env":{"CLAUDE_MEMORY_STORES":` + quoteJSON(StoresValue) + `}}`
	storesOff := `{"env":{"CLAUDE_MEMORY_STORES":` + quoteJSON(StoresValue) + `,"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC":"1"}}`
	for _, tc := range []struct {
		name, settings, project string
		c                       Client
		routes                  string
		fix, warn               string
	}{
		{"nothing set, current client", ``, ``, client("2.1.328", "api_key"), "", "teammemd setup claude", ""},
		{"hook set", hookOnly, ``, client("2.1.328", "api_key"), "hook", "", ""},
		{"hook on PATH", hookSettings("teammemd"), ``, client("2.1.328", "api_key"), "hook", "", ""},
		{"hook's binary gone", hookSettings(filepath.Join(filepath.Dir(bin), "old", "teammemd")), ``, client("2.1.328", "api_key"), "", "teammemd setup claude", ""},
		{"hook's binary not executable", hookSettings(plain), ``, client("2.1.88", "api_key"), "", "teammemd setup claude", ""},
		{"hooks off in the project", hookOnly, `{"disableAllHooks":true}`, client("2.1.328", "api_key"), "", "allow hooks", ""},
		{"stores set, claude.ai login", stores, ``, client("2.1.328", "claude.ai"), "stores", "", "Anthropic's host"},
		{"stores set, traffic off", storesOff, ``, client("2.1.328", "claude.ai"), "stores", "", ""},
		{"stores on an old client", stores, ``, client("2.1.200", "api_key"), "", "teammemd setup claude", ""},
		{"old client, claude.ai login", hookOnly, ``, client("2.1.150", "claude.ai"), "hook", "", "team memory feature"},
		{"no client", hookOnly, ``, Client{Err: errors.New("no claude on PATH")}, "", "install Claude Code", ""},
	} {
		home, checkout := t.TempDir(), t.TempDir()
		if tc.settings != "" {
			writeTestFile(t, filepath.Join(home, "settings.json"), tc.settings)
		}
		if tc.project != "" {
			writeTestFile(t, filepath.Join(checkout, ".claude", "settings.local.json"), tc.project)
		}
		v := Inspect(tc.c, home, checkout, func(string) string { return "" })
		if strings.HasPrefix(tc.name, "hook's binary") && !strings.Contains(v.Why, "which is not there") {
			t.Errorf("%s: why = %q, want it to say the hook's binary is not there", tc.name, v.Why)
		}
		var routes []string
		for _, r := range v.Routes {
			routes = append(routes, string(r))
		}
		if got := strings.Join(routes, ","); got != tc.routes {
			t.Errorf("%s: routes = %q, want %q (why %q)", tc.name, got, tc.routes, v.Why)
		}
		if !strings.Contains(v.Fix, tc.fix) || (tc.fix == "") != (v.Fix == "") {
			t.Errorf("%s: fix = %q, want %q", tc.name, v.Fix, tc.fix)
		}
		warn := strings.Join(v.Warnings, "; ")
		if !strings.Contains(warn, tc.warn) || (tc.warn == "") != (warn == "") {
			t.Errorf("%s: warnings = %q, want %q", tc.name, warn, tc.warn)
		}
	}
}

func quoteJSON(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Inspect says when the MCP server setup registered cannot start: its
// command moved, deleted or not a program, or the user config is not
// JSON; not for a server that can start, one reached over HTTP, one run
// by a bare name from PATH, or none. It reads the user config beside the
// config directory, or in it when CLAUDE_CONFIG_DIR names that.
func TestInspectMCP(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "teammemd")
	writeTestFile(t, bin, "#!/bin/sh\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "teammemd")
	writeTestFile(t, plain, "not a program")
	gone := filepath.Join(filepath.Dir(bin), "moved", "teammemd")
	server := func(entry string) string { return `{"mcpServers":{"teammemd":` + entry + `}}` }
	for _, tc := range []struct {
		name, config string
		configDir    bool // CLAUDE_CONFIG_DIR set: the user config is in the config directory
		want         string
	}{
		{"none registered", ``, false, ""},
		{"another server only", `{"mcpServers":{"other":` + string(MCPEntry(gone)) + `}}`, false, ""},
		{"registered and there", server(string(MCPEntry(bin))), false, ""},
		{"registered, binary gone", server(string(MCPEntry(gone))), false, "runs " + gone + ", which is not there"},
		{"binary gone, config dir set", server(string(MCPEntry(gone))), true, "runs " + gone + ", which is not there"},
		{"binary not a program", server(string(MCPEntry(plain))), false, "runs " + plain + ", which is not there"},
		{"bare name", server(string(MCPEntry("teammemd"))), false, ""},
		{"over HTTP", server(`{"type":"http","url":"https://memory.example.com/mcp"}`), false, ""},
		{"no command", server(`{"type":"stdio","args":["mcp"]}`), false, "names no command"},
		{"not JSON", `{"mcpServers":`, false, "is not valid JSON"},
	} {
		root := t.TempDir()
		home := filepath.Join(root, ".claude")
		config := filepath.Join(root, ".claude.json")
		if tc.configDir {
			config = filepath.Join(home, ".claude.json")
		}
		if tc.config != "" {
			writeTestFile(t, config, tc.config)
		}
		getenv := func(k string) string {
			if k == "CLAUDE_CONFIG_DIR" && tc.configDir {
				return home
			}
			return ""
		}
		v := Inspect(client("2.1.332", "api_key"), home, "", getenv)
		if tc.want == "" && v.MCP != "" || !strings.Contains(v.MCP, tc.want) {
			t.Errorf("%s: MCP = %q, want %q", tc.name, v.MCP, tc.want)
		}
		if tc.want != "" && !strings.Contains(v.MCP, config) {
			t.Errorf("%s: MCP = %q, want it to name %s", tc.name, v.MCP, config)
		}
		wantFix := ""
		if tc.name == "not JSON" {
			wantFix = "fix the JSON in " + config
		}
		if v.MCPFix != wantFix {
			t.Errorf("%s: MCPFix = %q, want %q", tc.name, v.MCPFix, wantFix)
		}
	}
}

// A client whose hooks are turned off is told which settings file turns
// them off, and no file that leaves them on.
func TestInspectNamesWhereHooksAreOff(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "teammemd")
	writeTestFile(t, bin, "#!/bin/sh\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	hook := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"` + bin + ` hook session-start"}]}]}}`
	off := `{"disableAllHooks":true}`
	hookOff := `{"disableAllHooks":true,` + hook[1:]
	for _, tc := range []struct {
		name, user, project, local string
		off                        []string // the files named, by their place
	}{
		{"the local settings", hook, ``, off, []string{"local"}},
		{"the project's settings", hook, off, ``, []string{"project"}},
		{"the user's settings", hookOff, ``, ``, []string{"user"}},
		{"two of them", hookOff, `{}`, off, []string{"user", "local"}},
	} {
		home, checkout := t.TempDir(), t.TempDir()
		files := map[string]string{
			"user":    SettingsPath(home),
			"project": filepath.Join(checkout, ".claude", "settings.json"),
			"local":   filepath.Join(checkout, ".claude", "settings.local.json"),
		}
		for place, data := range map[string]string{"user": tc.user, "project": tc.project, "local": tc.local} {
			if data != "" {
				writeTestFile(t, files[place], data)
			}
		}
		v := Inspect(client("2.1.328", "api_key"), home, checkout, func(string) string { return "" })
		var want []string
		for _, place := range tc.off {
			want = append(want, files[place])
		}
		if w := "its hooks are turned off (disableAllHooks in " + strings.Join(want, ", ") + ")"; v.Why != w {
			t.Errorf("%s: Inspect().Why = %q, want %q", tc.name, v.Why, w)
		}
	}
}

// Managed settings that allow only managed hooks, and hold no teammemd
// hook, are named with that reason, beside the files that disable all
// hooks.
func TestWhyNotHooksOffByManagedSettings(t *testing.T) {
	e := effective{hook: true, hooksOff: true, managedOnly: true, offIn: []string{"/u/settings.json"}}
	want := "its hooks are turned off (disableAllHooks in /u/settings.json; allowManagedHooksOnly in " + managedSettings() + ", which runs no teammemd hook)"
	if why, _ := whyNot(client("2.1.328", "api_key"), e); why != want {
		t.Errorf("whyNot(managed hooks only) = %q, want %q", why, want)
	}
}
