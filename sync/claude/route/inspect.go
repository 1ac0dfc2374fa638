package route

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/teammemd/teammemd/sync/fsio"
)

// Verdict is whether a client, as configured, loads a checkout's team
// directory, and what it would do with it.
type Verdict struct {
	Client Client
	// Routes are the routes by which it loads the team directory; none
	// when it will not.
	Routes []Route
	// Why says why it will not, when it will not.
	Why string
	// Fix is the command that makes it load the team directory.
	Fix string
	// Warnings say where the client itself would send the team's notes.
	Warnings []string
	// MCP says why the MCP server setup registered for the client cannot
	// start; empty when it can, or none is registered.
	MCP string
	// MCPFix is the fix of the user config itself, when that is what
	// keeps the MCP server from starting.
	MCPFix string
}

// Loads reports whether the client loads the team directory.
func (v Verdict) Loads() bool { return len(v.Routes) > 0 }

// effective is what the settings Claude Code reads add up to.
type effective struct {
	env         map[string]string
	hook        bool     // a teammemd SessionStart hook is set
	hooksOff    bool     // disableAllHooks, or managed hooks only and none of ours there
	offIn       []string // the settings files that set disableAllHooks
	unreadable  []string
	managedOnly bool // allowManagedHooksOnly in the managed settings
	managedHook bool // a teammemd hook in the managed settings
	// goneHook is the binary of a teammemd hook that is not there (moved
	// or deleted), which Claude Code cannot run; hook is set only by one
	// whose binary is.
	goneHook string
}

// Inspect tells whether client c loads the team directory of checkout (a
// git root; empty for none) with the settings in Claude Code's config
// directory home, the checkout's own settings, the managed settings and
// the environment getenv reads.
func Inspect(c Client, home, checkout string, getenv func(string) string) Verdict {
	e := readEffective(home, checkout, getenv)
	v := Verdict{Client: c}
	v.MCP, v.MCPFix = mcpProblem(userConfigOf(home, getenv))
	v.Warnings = uploadWarnings(c, e)
	for _, f := range e.unreadable {
		v.Warnings = append(v.Warnings, "cannot read "+f+", so this verdict may be wrong")
	}
	if c.Path == "" {
		v.Why = "no Claude Code client was found (" + errText(c.Err) + ")"
		v.Fix = "install Claude Code, or pass --claude PATH; then teammemd setup claude"
		return v
	}
	hooksOK := c.Version == nil || !c.Version.LessThan(HooksSince)
	if e.hook && !e.hooksOff && hooksOK {
		v.Routes = append(v.Routes, Hook)
	}
	if storesOK(c, e) {
		v.Routes = append(v.Routes, Stores)
	}
	if v.Loads() {
		return v
	}
	v.Why, v.Fix = whyNot(c, e)
	return v
}

// whyNot explains a client that will not load the team directory.
func whyNot(c Client, e effective) (why, fix string) {
	switch {
	case c.Version == nil:
		return fmt.Sprintf("%s did not say its version (%s)", c.Path, errText(c.Err)), "check that " + c.Path + " --version runs"
	case c.Version.LessThan(HooksSince):
		return fmt.Sprintf("Claude Code %s predates SessionStart hooks", c.Version), "claude update, then teammemd setup claude"
	case !e.hook && e.goneHook != "":
		return fmt.Sprintf("its SessionStart hook runs %s, which is not there (moved or deleted), so the hook fails and the model never sees team notes", e.goneHook),
			"teammemd setup claude (with the teammemd you use now)"
	case e.hook && e.hooksOff:
		return "its hooks are turned off (" + hooksOffWhere(e) + ")",
			"allow hooks in Claude Code's settings, or teammemd setup claude --route stores --disable-client-traffic"
	case !c.Version.LessThan(StoresSince):
		return fmt.Sprintf("Claude Code %s reads a team directory only through CLAUDE_MEMORY_STORES or a hook, and neither is set, so the model never sees team notes", c.Version),
			"teammemd setup claude"
	}
	return fmt.Sprintf("Claude Code %s reads memory/team/ only for a claude.ai login with its team memory feature on, and no teammemd hook is set", c.Version),
		"teammemd setup claude"
}

// hooksOffWhere names the settings that turn the hooks off: the files
// that set disableAllHooks, and managed settings that allow only their own
// hooks and hold no teammemd hook.
func hooksOffWhere(e effective) string {
	var where []string
	if len(e.offIn) > 0 {
		where = append(where, "disableAllHooks in "+strings.Join(e.offIn, ", "))
	}
	if e.managedOnly && !e.managedHook {
		where = append(where, "allowManagedHooksOnly in "+managedSettings()+", which runs no teammemd hook")
	}
	return strings.Join(where, "; ")
}

// storesOK reports whether the stores route works for c with e.
func storesOK(c Client, e effective) bool {
	if c.Version == nil || c.Version.LessThan(StoresSince) || autoMemoryOff(e.env) {
		return false
	}
	return teamStore(e.env[EnvStores])
}

// teamStore reports whether a CLAUDE_MEMORY_STORES value names a store of
// scope team and one of scope user, the layout in which the team
// directory is memory/team/.
func teamStore(value string) bool {
	var stores []struct {
		Scope string `json:"scope"`
	}
	if json.Unmarshal([]byte(value), &stores) != nil {
		return false
	}
	team, user := false, false
	for _, s := range stores {
		team = team || s.Scope == "team" || s.Scope == ""
		user = user || s.Scope == "user"
	}
	return team && user
}

// autoMemoryOff reports whether CLAUDE_CODE_DISABLE_AUTO_MEMORY turns the
// client's memory off.
func autoMemoryOff(env map[string]string) bool {
	switch strings.ToLower(strings.TrimSpace(env["CLAUDE_CODE_DISABLE_AUTO_MEMORY"])) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// trafficOff reports whether the client's nonessential traffic is off.
func trafficOff(env map[string]string) bool {
	return strings.TrimSpace(env[EnvTrafficOff]) != "" && env[EnvTrafficOff] != "0" && !strings.EqualFold(env[EnvTrafficOff], "false")
}

// uploadWarnings says where the client itself would send team notes.
func uploadWarnings(c Client, e effective) []string {
	if !c.Login.Uploads() || trafficOff(e.env) || c.Version == nil {
		return nil
	}
	const fix = "teammemd setup claude --disable-client-traffic"
	switch {
	case !c.Version.LessThan(StoresSince) && e.env[EnvStores] != "":
		return []string{fmt.Sprintf("with %s and CLAUDE_MEMORY_STORES set, Claude Code %s syncs its memory stores, team notes included, with Anthropic's host; %s stops that",
			c.Login, c.Version, fix)}
	case c.Version.LessThan(StoresSince) && (!c.Version.LessThan(FixedHostSince) || e.env["TEAM_MEMORY_SYNC_URL"] == ""):
		return []string{fmt.Sprintf("with %s, Claude Code %s uploads memory/team/ to Anthropic's host when its team memory feature is on for the account; %s stops that",
			c.Login, c.Version, fix)}
	}
	return nil
}

// readEffective reads the settings that apply to checkout, in Claude
// Code's order: the environment, then user, project, local and managed
// settings, each later one winning for an env key.
func readEffective(home, checkout string, getenv func(string) string) effective {
	e := effective{env: map[string]string{}}
	for _, k := range []string{EnvStores, EnvTrafficOff, "CLAUDE_CODE_DISABLE_AUTO_MEMORY", "TEAM_MEMORY_SYNC_URL"} {
		if v := getenv(k); v != "" {
			e.env[k] = v
		}
	}
	for _, f := range settingsFiles(home, checkout) {
		e.add(f)
	}
	e.hooksOff = e.hooksOff || (e.managedOnly && !e.managedHook)
	return e
}

// settingsFiles lists the settings files for checkout, lowest first; the
// last one is the managed settings.
func settingsFiles(home, checkout string) []string {
	files := []string{SettingsPath(home)}
	if checkout != "" {
		files = append(files, filepath.Join(checkout, ".claude", "settings.json"), filepath.Join(checkout, ".claude", "settings.local.json"))
	}
	return append(files, managedSettings())
}

// managedSettings is where an administrator's managed settings live.
func managedSettings() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/managed-settings.json"
	case "windows":
		return `C:\Program Files\ClaudeCode\managed-settings.json`
	}
	return "/etc/claude-code/managed-settings.json"
}

// add folds one settings file into e.
func (e *effective) add(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		if !os.IsNotExist(err) {
			e.unreadable = append(e.unreadable, path)
		}
		return
	}
	if !gjson.ValidBytes(data) {
		e.unreadable = append(e.unreadable, path)
		return
	}
	for k, v := range gjson.GetBytes(data, "env").Map() {
		e.env[k] = v.String()
	}
	managed := path == managedSettings()
	if gjson.GetBytes(data, "disableAllHooks").Bool() {
		e.hooksOff = true
		e.offIn = append(e.offIn, path)
	}
	e.managedOnly = e.managedOnly || (managed && gjson.GetBytes(data, "allowManagedHooksOnly").Bool())
	eachHook(data, func(_, _ int, cmd string) {
		bin, ok := hookBinary(cmd)
		switch {
		case !ok:
		case !runnable(bin):
			e.goneHook = bin
		default:
			e.hook = true
			e.managedHook = e.managedHook || managed
		}
	})
}

// runnable reports whether a hook's binary can run: an executable file
// at an absolute path, or a bare name, which Claude Code finds on the PATH
// it runs with, not known here.
func runnable(bin string) bool {
	if !filepath.IsAbs(bin) {
		return true
	}
	fi, err := os.Stat(bin)
	return err == nil && fsio.Executable(fi.Mode())
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
