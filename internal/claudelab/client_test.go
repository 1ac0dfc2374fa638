package claudelab

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A native build is linked in; a Node.js build gets a script that runs
// its cli.js with node; Version reads what either prints.
func TestInstallAndVersion(t *testing.T) {
	pkg := t.TempDir()
	script := "#!/bin/sh\necho '2.1.328 (Claude Code)'\n"
	if err := os.WriteFile(filepath.Join(pkg, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	claude, err := Build{Version: "2.1.328"}.Install(pkg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if v, err := Version(t.Context(), claude, nil); v != "2.1.328" || err != nil {
		t.Errorf("Version(native) = %q, %v, want 2.1.328", v, err)
	}

	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on PATH for the Node.js build: install Node.js (.ci/run does) to run this test")
	}
	cli := "if (process.argv[2] === '--version') console.log('2.1.88 (Claude Code)');\n"
	if err := os.WriteFile(filepath.Join(pkg, "cli.js"), []byte(cli), 0o644); err != nil {
		t.Fatal(err)
	}
	claude, err = Build{Version: "2.1.88", Node: true}.Install(pkg, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if v, err := Version(t.Context(), claude, nil); v != "2.1.88" || err != nil {
		t.Errorf("Version(node) = %q, %v, want 2.1.88", v, err)
	}
}

func TestPackage(t *testing.T) {
	if got := (Build{Version: "2.1.88", Node: true}).Package(); got.String() != "@anthropic-ai/claude-code@2.1.88" {
		t.Errorf("Package(node 2.1.88) = %s, want @anthropic-ai/claude-code@2.1.88", got)
	}
}
