package proclab

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/teammemd/teammemd/sync/claude"
)

// layOutHome makes home a teammate's home directory: a git checkout,
// home/app, with the spec's origin remote, and the places Claude Code and
// teammemd keep their files there by default.
func (d *Daemon) layOutHome(ctx context.Context, home string) error {
	d.Home, d.Checkout = home, filepath.Join(home, "app")
	d.ClaudeHome = filepath.Join(home, ".claude")
	d.ConfigDir = filepath.Join(home, ".config", "teammemd")
	d.Config = filepath.Join(d.ConfigDir, "config.toml")
	d.StateDir = filepath.Join(home, ".local", "state", "teammemd")
	if err := os.MkdirAll(d.Checkout, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", d.Checkout, err)
	}
	for _, args := range [][]string{{"init", "-q", d.Checkout}, {"-C", d.Checkout, "remote", "add", "origin", d.Origin}} {
		d.lab.show(Command{Program: "git", Args: args})
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		if _, err := output("git", cmd); err != nil {
			return err
		}
	}
	r, err := claude.DiscoverIn(ctx, d.ClaudeHome, d.Checkout)
	if err != nil {
		return err
	}
	d.Dir, d.Memory = r.Dir, filepath.Dir(r.Dir)
	return nil
}

// homeEnv is what a command run as the teammate changes in the lab's
// environment: the home directory set, and the lab's own config and
// Claude Code directory taken out, so that every default lands in the
// home, Claude Code's too when teammemd runs the client.
func (d *Daemon) homeEnv() []string {
	return []string{"HOME=" + d.Home, "TEAMMEMD_CONFIG", "CLAUDE_CONFIG_DIR"}
}

// Run runs the binary with args as the teammate of a daemon with Origin
// set, with input (nil for none) on its standard input, to completion and
// returns its trimmed standard output.
func (d *Daemon) Run(ctx context.Context, input *Input, args ...string) (string, error) {
	if d.Origin == "" {
		return "", fmt.Errorf("daemon %s has no home of its own to run commands in", d.Name)
	}
	return d.lab.run(ctx, d.homeEnv(), input, args...)
}

// Input is what a command reads on its standard input.
type Input struct {
	// Data is the input.
	Data io.Reader
	// Shown is a shell command whose output is the input, as the lab
	// shows the command: "printf %s \"$TOKEN\"" for a token.
	Shown string
}
