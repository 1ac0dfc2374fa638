package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/claudelab"
	"github.com/teammemd/teammemd/internal/proclab/labtest"
)

// The demo with a shipped client on PATH, as on a teammate's laptop: setup
// finds it, alice's status says it loads the team's notes, bob's session
// start lists alice's note, and the client, which teammemd runs as each
// teammate, writes nothing outside the demo's directory (not in the
// directory the demo runs from).
func TestDemoWithShippedClient(t *testing.T) {
	if os.Getenv(gateEnv) != "1" {
		t.Skipf("set %s=1 to run the shipped Claude Code clients (see .ci/run)", gateEnv)
	}
	if err := claudelab.OnlyLoopback(); err != nil {
		t.Fatalf("the test must run in a network namespace with nothing but loopback: %v", err)
	}
	build := builds[len(builds)-1]
	bin := t.TempDir()
	installClient(t, build, bin)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cwd := t.TempDir()
	cmd := exec.CommandContext(ctx, labtest.Binary(t), "demo", "--workdir", filepath.Join(t.TempDir(), "demo"))
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("teammemd demo: %v\n%s", err, out)
	}
	for _, want := range []string{
		"     Claude Code: " + build.Version + " at " + filepath.Join(bin, "claude"),
		"   agent\n     demo/team-memory: Claude Code " + build.Version + " loads these team notes (route: hook)\n",
		"   - testing.md: Running the tests - ",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	left, err := os.ReadDir(cwd)
	if err != nil || len(left) > 0 {
		t.Errorf("the demo left %d entries in the directory it ran from (%v), want none: %v", len(left), err, left)
	}
}
