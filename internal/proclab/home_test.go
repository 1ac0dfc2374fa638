package proclab

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A command run as a teammate has the teammate's home and none of the
// lab's own config and Claude Code directory: not even set empty, which
// Claude Code takes for the working directory.
func TestTeammateEnvironment(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", "/elsewhere/claude")
	lab, err := New(t.TempDir(), "/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	d, err := lab.NewDaemon(t.Context(), DaemonSpec{Name: "alice", Repo: "acme/app", Origin: "https://github.com/acme/app.git"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.Run(t.Context(), nil, "-c", "env")
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Split(out, "\n")
	if !slices.Contains(env, "HOME="+d.Home) {
		t.Errorf("environment lacks HOME=%s:\n%s", d.Home, out)
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "CLAUDE_CONFIG_DIR=") || strings.HasPrefix(kv, "TEAMMEMD_CONFIG=") {
			t.Errorf("a teammate's command has %s, want the variable unset", kv)
		}
	}
	want := filepath.Join(d.Home, ".claude", "projects")
	if !strings.HasPrefix(d.Dir, want) || filepath.Base(d.Dir) != "team" {
		t.Errorf("team directory %s, want the checkout's project's under %s", d.Dir, want)
	}
}
