package route

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
	"github.com/tidwall/sjson"
)

// The environment variables a route sets in the settings' env block.
const (
	EnvStores     = "CLAUDE_MEMORY_STORES"
	EnvTrafficOff = "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"
)

// StoresValue is the CLAUDE_MEMORY_STORES the stores route writes: one
// user store and one team store, which gives the client memory/ for the
// user's own notes and memory/team/ for the team's. The paths name stores
// on Anthropic's host, which the client never reaches with its
// nonessential traffic off.
const StoresValue = `[{"path":"/v1/code/memory/teammemd-personal","scope":"user","mount":"personal"},` +
	`{"path":"/v1/code/memory/teammemd-team","scope":"team","mount":"team"}]`

// hookTimeout is the seconds Claude Code gives the hook before it gives up.
const hookTimeout = 10

// Change is what a route sets in Claude Code's settings.
type Change struct {
	// Env maps the env keys set to their values.
	Env map[string]string
	// Hook is the SessionStart hook's command line.
	Hook string
}

// ChangeFor is the change that makes choice, with the hook running
// hookCommand.
func ChangeFor(choice Choice, hookCommand string) Change {
	c := Change{Env: map[string]string{}, Hook: hookCommand}
	if choice.Route == Stores {
		c.Env[EnvStores] = StoresValue
	}
	if choice.TrafficOff {
		c.Env[EnvTrafficOff] = "1"
	}
	return c
}

// SettingsPath is the user's settings file in Claude Code's config
// directory home.
func SettingsPath(home string) string { return filepath.Join(home, "settings.json") }

// checkSettings refuses a settings document the change cannot merge into
// without losing something: one that is not a JSON object, or whose env,
// hooks or hooks.SessionStart have another shape than Claude Code's.
func checkSettings(doc []byte) error {
	if len(strings.TrimSpace(string(doc))) == 0 {
		return nil
	}
	if p := objectProblem(doc); p != "" {
		return errors.New("it is " + p)
	}
	for _, k := range []struct{ path, want string }{{"env", "object"}, {"hooks", "object"}, {"hooks.SessionStart", "array"}} {
		v := gjson.GetBytes(doc, k.path)
		if !v.Exists() {
			continue
		}
		if (k.want == "object" && !v.IsObject()) || (k.want == "array" && !v.IsArray()) {
			return fmt.Errorf("its %q is not a JSON %s", k.path, k.want)
		}
	}
	for name, v := range gjson.GetBytes(doc, "env").Map() {
		if _, ours := ourEnv[name]; ours && v.Type != gjson.String {
			return fmt.Errorf("its env.%s is not a string", name)
		}
	}
	return nil
}

// objectProblem says why doc is no JSON object, "" when it is one: not
// valid JSON at all (a comment, or text after the closing brace, which
// Claude Code's JSON files cannot hold), or valid JSON of another kind.
func objectProblem(doc []byte) string {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Sprintf("not valid JSON (%v, at byte %d): it may hold no comments, nor anything after the closing }", se, se.Offset)
		}
		return fmt.Sprintf("not valid JSON (%v)", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return "valid JSON but not an object {...}"
	}
	return ""
}

// ourEnv is every env key a route may set.
var ourEnv = map[string]bool{EnvStores: true, EnvTrafficOff: true}

// merge applies c to the settings document doc. It keeps every other key,
// sets c's env keys, and leaves exactly one teammemd SessionStart hook,
// c.Hook. prior maps each env key set to its value before, nil where it
// was absent.
func merge(doc []byte, c Change) (out []byte, prior map[string]*string, err error) {
	if err := checkSettings(doc); err != nil {
		return nil, nil, err
	}
	if len(strings.TrimSpace(string(doc))) == 0 {
		doc = []byte("{}")
	}
	prior = map[string]*string{}
	for _, name := range slices.Sorted(maps.Keys(c.Env)) {
		if v := gjson.GetBytes(doc, envPath(name)); v.Exists() {
			s := v.String()
			prior[name] = &s
		} else {
			prior[name] = nil
		}
		if doc, err = sjson.SetBytes(doc, envPath(name), c.Env[name]); err != nil {
			return nil, nil, fmt.Errorf("set env.%s: %w", name, err)
		}
	}
	if doc, err = removeHooks(doc, func(cmd string) bool { return IsHookCommand(cmd) && cmd != c.Hook }); err != nil {
		return nil, nil, err
	}
	if !hasHook(doc, c.Hook) {
		entry := map[string]any{"hooks": []map[string]any{{"type": "command", "command": c.Hook, "timeout": hookTimeout}}}
		if doc, err = sjson.SetBytes(doc, "hooks.SessionStart.-1", entry); err != nil {
			return nil, nil, fmt.Errorf("add the SessionStart hook: %w", err)
		}
	}
	return format(doc), prior, nil
}

// format indents doc as Claude Code writes its settings, keeping the
// order of the keys.
func format(doc []byte) []byte {
	return pretty.PrettyOptions(doc, &pretty.Options{Width: 80, Indent: "  ", SortKeys: false})
}

// envPath is the sjson path of an env key.
func envPath(name string) string { return "env." + escapePath(name) }

// escapePath escapes the characters sjson and gjson give a meaning.
func escapePath(s string) string {
	r := strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`, "|", `\|`, "#", `\#`, "@", `\@`)
	return r.Replace(s)
}

// IsHookCommand reports whether cmd is a teammemd SessionStart hook: a
// command line that runs a binary named as teammemd (IsTeammemdName) with
// "hook session-start".
func IsHookCommand(cmd string) bool {
	_, ok := hookBinary(cmd)
	return ok
}

// hookBinary returns the binary a teammemd SessionStart hook runs, and
// whether cmd is one (IsHookCommand).
func hookBinary(cmd string) (string, bool) {
	bin, ok := strings.CutSuffix(strings.TrimSpace(cmd), " hook session-start")
	if !ok {
		return "", false
	}
	bin = strings.Trim(strings.TrimSpace(bin), `'"`)
	return bin, IsTeammemdName(path.Base(filepath.ToSlash(bin)))
}

// IsTeammemdName reports whether a binary's file name is teammemd's:
// teammemd, or teammemd followed by "-", "_" or "." and anything (a
// release's platform or version, ".exe").
func IsTeammemdName(name string) bool {
	rest, ok := strings.CutPrefix(name, "teammemd")
	return ok && (rest == "" || strings.ContainsRune("-_.", rune(rest[0])))
}

// hasHook reports whether a SessionStart hook runs cmd.
func hasHook(doc []byte, cmd string) bool {
	found := false
	eachHook(doc, func(_, _ int, c string) {
		found = found || c == cmd
	})
	return found
}

// eachHook calls f with the group and hook index and the command of every
// SessionStart command hook.
func eachHook(doc []byte, f func(group, hook int, cmd string)) {
	for g, group := range gjson.GetBytes(doc, "hooks.SessionStart").Array() {
		for h, hook := range group.Get("hooks").Array() {
			if c := hook.Get("command"); c.Type == gjson.String {
				f(g, h, c.String())
			}
		}
	}
}

// removeHooks deletes every SessionStart hook whose command drop matches,
// and a group it leaves without hooks.
func removeHooks(doc []byte, drop func(string) bool) ([]byte, error) {
	type at struct{ group, hook int }
	var gone []at
	eachHook(doc, func(g, h int, cmd string) {
		if drop(cmd) {
			gone = append(gone, at{g, h})
		}
	})
	var err error
	for i := len(gone) - 1; i >= 0; i-- {
		g := strconv.Itoa(gone[i].group)
		if doc, err = sjson.DeleteBytes(doc, "hooks.SessionStart."+g+".hooks."+strconv.Itoa(gone[i].hook)); err != nil {
			return nil, fmt.Errorf("remove a SessionStart hook: %w", err)
		}
		if len(gjson.GetBytes(doc, "hooks.SessionStart."+g+".hooks").Array()) == 0 {
			if doc, err = sjson.DeleteBytes(doc, "hooks.SessionStart."+g); err != nil {
				return nil, fmt.Errorf("remove a SessionStart hook group: %w", err)
			}
		}
	}
	return doc, nil
}
