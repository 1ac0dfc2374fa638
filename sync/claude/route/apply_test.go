package route

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

const hookCmd = "'/opt/bin/teammemd' hook session-start"

// writeFile is the WriteFunc of the tests: a plain write, with the mode.
func writeFile(path string, data []byte, perm os.FileMode) error {
	if err := os.WriteFile(path, data, perm); err != nil {
		return err
	}
	return os.Chmod(path, perm)
}

var storesChange = Change{Env: map[string]string{EnvStores: StoresValue, EnvTrafficOff: "1"}, Hook: hookCmd}

func TestMergeKeepsTheUsersSettings(t *testing.T) {
	user := `{
  "model": "opus",
  "env": {"FOO": "bar", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "0"},
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]},
    {"hooks": [{"type": "command", "command": "/old/place/teammemd hook session-start"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}
}`
	out, prior, err := merge([]byte(user), storesChange)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"model": "opus", "env.FOO": "bar", "permissions.allow.0": "Bash(ls:*)",
		"env." + EnvStores: StoresValue, "env." + EnvTrafficOff: "1",
		"hooks.SessionStart.0.hooks.0.command": "echo hi", "hooks.SessionStart.0.matcher": "startup",
		"hooks.SessionStart.1.hooks.0.command": hookCmd, "hooks.SessionStart.#": "2",
		"hooks.Stop.0.hooks.0.command": "say done",
	} {
		if got := gjson.GetBytes(out, path).String(); got != want {
			t.Errorf("merge: %s = %q, want %q\n%s", path, got, want, out)
		}
	}
	if p := prior[EnvTrafficOff]; p == nil || *p != "0" {
		t.Errorf("prior %s = %v, want 0", EnvTrafficOff, p)
	}
	if p, ok := prior[EnvStores]; !ok || p != nil {
		t.Errorf("prior %s = %v, %v; want absent (nil, true)", EnvStores, p, ok)
	}
	again, _, err := merge(out, storesChange)
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("merge twice changed the settings again (err %v):\n%s\n%s", err, out, again)
	}
}

func TestMergeRefusesWhatItCannotKeep(t *testing.T) {
	for _, doc := range []string{`[1,2]`, `{"env": "x"}`, `{"hooks": {"SessionStart": {}}}`, `{"hooks": []}`, `{bad json`, `{"env": {"CLAUDE_MEMORY_STORES": 3}}`} {
		if _, _, err := merge([]byte(doc), storesChange); err == nil {
			t.Errorf("merge(%s) = nil error, want a refusal", doc)
		}
	}
}

// Settings that are not valid JSON (a comment, text after the object) are
// said to be so, apart from valid JSON that is not an object.
func TestMergeSaysWhyNotJSON(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"{\"model\": \"opus\"} // mine\n", "not valid JSON"},
		{"// mine\n{\"model\": \"opus\"}\n", "not valid JSON"},
		{"{\"model\": \"opus\"}\ntrailing\n", "not valid JSON"},
		{"[1, 2]", "valid JSON but not an object"},
	}
	for _, tt := range tests {
		_, _, err := merge([]byte(tt.doc), storesChange)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("merge(%q) = %v, want an error saying %q", tt.doc, err, tt.want)
		}
	}
}

func TestIsHookCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		hookCmd: true, "/usr/bin/teammemd hook session-start": true, `"/a b/teammemd" hook session-start`: true,
		"teammemd hook session-start --x": false, "/usr/bin/other hook session-start": false, "echo teammemd": false,
		"/opt/teammemd-linux-amd64 hook session-start": true, `C:/tools/teammemd.exe hook session-start`: true,
		"'/opt/teammemd_1.2' hook session-start": true, "/usr/bin/teammemdx hook session-start": false, "/usr/bin/tm hook session-start": false,
	} {
		if got := IsHookCommand(cmd); got != want {
			t.Errorf("IsHookCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// setupOnce plans and applies change in dir's settings at now.
func setupOnce(t *testing.T, dir string, c Change, now time.Time) Plan {
	t.Helper()
	p, err := PlanSetup(filepath.Join(dir, "settings.json"), filepath.Join(dir, "state", "record.json"), c, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Apply(p, writeFile); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestUndoRestoresTheFileExactly(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	orig := "{\"model\":\"opus\",   \"env\":{\"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC\":\"0\"}}\n"
	if err := os.WriteFile(settings, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	first := setupOnce(t, dir, Change{Env: map[string]string{}, Hook: hookCmd}, now)
	if first.BackupPath == "" {
		t.Fatal("first setup made no backup")
	}
	second := setupOnce(t, dir, storesChange, now.Add(time.Hour))
	if second.BackupPath != "" {
		t.Errorf("second setup made another backup %s", second.BackupPath)
	}
	third, err := PlanSetup(settings, filepath.Join(dir, "state", "record.json"), storesChange, now.Add(2*time.Hour))
	if err != nil || !third.Unchanged() {
		t.Errorf("a third identical setup: Unchanged = %v (err %v), want true", third.Unchanged(), err)
	}
	u, err := Undo(filepath.Join(dir, "state", "record.json"), writeFile)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(settings)
	if !u.Exact || string(got) != orig {
		t.Errorf("Undo: exact %v, file %q; want exact, %q", u.Exact, got, orig)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after undo = %v, want 0640", fi.Mode().Perm())
	}
	if _, err := os.Stat(first.BackupPath); !os.IsNotExist(err) {
		t.Errorf("the backup %s is still there after an exact undo", first.BackupPath)
	}
	if _, err := Undo(filepath.Join(dir, "state", "record.json"), writeFile); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Errorf("a second Undo = %v, want nothing to undo", err)
	}
}

func TestUndoOfACreatedFileRemovesIt(t *testing.T) {
	dir := t.TempDir()
	p := setupOnce(t, dir, storesChange, time.Now())
	if p.Existed || p.BackupPath != "" {
		t.Fatalf("plan for a missing file: existed %v backup %q", p.Existed, p.BackupPath)
	}
	if fi, err := os.Stat(p.Settings); err != nil || fi.Mode().Perm() != newSettingsMode {
		t.Fatalf("created settings: %v, %v", fi, err)
	}
	if _, err := Undo(filepath.Join(dir, "state", "record.json"), writeFile); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.Settings); !os.IsNotExist(err) {
		t.Errorf("settings still there after undoing the setup that created them: %v", err)
	}
}

func TestUndoKeepsTheUsersLaterChanges(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"model":"opus"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	setupOnce(t, dir, storesChange, time.Now())
	later, _ := os.ReadFile(settings)
	later = bytes.Replace(later, []byte(`"model": "opus"`), []byte(`"model": "sonnet", "theme": "dark"`), 1)
	later = bytes.Replace(later, []byte(`"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"`), []byte(`"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "yes"`), 1)
	if err := os.WriteFile(settings, later, 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := Undo(filepath.Join(dir, "state", "record.json"), writeFile)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(settings)
	if u.Exact || len(u.Kept) != 1 || u.Kept[0] != EnvTrafficOff {
		t.Errorf("Undo after a user edit: exact %v kept %v; want key by key, keeping %s", u.Exact, u.Kept, EnvTrafficOff)
	}
	for path, want := range map[string]string{"model": "sonnet", "theme": "dark", "env." + EnvTrafficOff: "yes", "env." + EnvStores: "", "hooks": ""} {
		if v := gjson.GetBytes(got, path).String(); v != want {
			t.Errorf("after undo %s = %q, want %q\n%s", path, v, want, got)
		}
	}
}

func TestPlanRefusesABrokenFile(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"env": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanSetup(settings, filepath.Join(dir, "record.json"), storesChange, time.Now()); err == nil || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("PlanSetup on broken JSON = %v, want a refusal that says nothing was written", err)
	}
}
