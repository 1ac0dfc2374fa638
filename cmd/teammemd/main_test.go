package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Asking any command for help prints its usage and exits 0.
func TestHelpExitsZero(t *testing.T) {
	var cmds [][]string
	var walk func(path []string, c *cobra.Command)
	walk = func(path []string, c *cobra.Command) {
		cmds = append(cmds, path)
		for _, sub := range c.Commands() {
			walk(append(slices.Clone(path), sub.Name()), sub)
		}
	}
	walk([]string{}, newRootCmd(realDeps()))
	for _, cmd := range cmds {
		for _, help := range []string{"-h", "--help", "-help"} {
			args := append(slices.Clone(cmd), help)
			stdout, stderr, code := runCLI(t, args...)
			if code != 0 || !strings.Contains(strings.ToLower(stdout+stderr), "usage") {
				t.Errorf("teammemd %s: exit %d, output %q, want 0 and a usage text", strings.Join(args, " "), code, stdout+stderr)
			}
		}
	}
}

func TestVersionSpellings(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		stdout, stderr, code := runCLI(t, args...)
		if code != 0 || stdout != "teammemd "+version+"\n" {
			t.Errorf("teammemd %s = %q exit %d (stderr %q), want %q and 0", args[0], stdout, code, stderr, "teammemd "+version+"\n")
		}
	}
	if _, _, code := runCLI(t, "version", "extra"); code != 2 {
		t.Errorf("teammemd version extra exit %d, want 2", code)
	}
}

// Every command of teammemd says what it does and shows an example; every
// one that runs checks its arguments.
func TestCommandsDocumented(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		name := c.CommandPath()
		if c.Short == "" || c.Example == "" {
			t.Errorf("%s: Short %q, Example %q, want both", name, c.Short, c.Example)
		}
		if c.Runnable() && c.Args == nil && !c.HasSubCommands() {
			t.Errorf("%s runs but checks no arguments", name)
		}
	}
	walk(newRootCmd(realDeps()))
}
