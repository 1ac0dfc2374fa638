package claudelab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/sync/fsio"
)

// Build is one release of the Claude Code client as npm ships it: a
// native executable in a package per platform, or (for the older
// releases) a Node.js script.
type Build struct {
	Version string
	// Node says the release is the Node.js package, run as node cli.js.
	Node bool
}

// Package is the npm package that holds the build for this platform.
func (b Build) Package() Package {
	if b.Node {
		return Package{Name: "@anthropic-ai/claude-code", Version: b.Version}
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return Package{Name: "@anthropic-ai/claude-code-" + runtime.GOOS + "-" + arch, Version: b.Version}
}

// Install puts a "claude" command for the build unpacked in pkgDir into
// binDir: a link to the native executable, or a script that runs cli.js
// with the node on PATH. It returns the command's path.
func (b Build) Install(pkgDir, binDir string) (string, error) {
	path := filepath.Join(binDir, "claude")
	if !b.Node {
		exe := filepath.Join(pkgDir, "claude")
		if err := executable(exe); err != nil {
			return "", err
		}
		return path, os.Symlink(exe, path)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("release %s of Claude Code runs on Node.js: %w", b.Version, err)
	}
	script := filepath.Join(pkgDir, "cli.js")
	if _, err := os.Stat(script); err != nil {
		return "", fmt.Errorf("release %s of Claude Code: %w", b.Version, err)
	}
	wrapper := "#!/bin/sh\nexec " + shell.Join(node, script) + ` "$@"` + "\n"
	return path, os.WriteFile(path, []byte(wrapper), 0o755)
}

// executable checks that path is an executable file.
func executable(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("the Claude Code client: %w", err)
	}
	if !fsio.Executable(info.Mode()) {
		return fmt.Errorf("the Claude Code client %s is not an executable file", path)
	}
	return nil
}

// versionTimeout bounds "claude --version".
const versionTimeout = 30 * time.Second

// Version runs "claude --version", bounded to 30 s, and returns the
// version it prints first ("2.1.328 (Claude Code)" gives 2.1.328).
func Version(ctx context.Context, claude string, env []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "--version")
	cmd.Env = env
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(exit.Stderr)))
	}
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", claude, err)
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return v, nil
}
