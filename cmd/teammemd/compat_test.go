package main

import (
	"slices"
	"testing"
)

// The single-dash long flags earlier versions wrote into units, plists,
// hooks and scripts are rewritten to --name; nothing else is touched.
func TestNormaliseArgs(t *testing.T) {
	tests := []struct {
		args, want []string
	}{
		{[]string{"run", "-config", "c.toml", "-log-format", "json"}, []string{"run", "--config", "c.toml", "--log-format", "json"}},
		{[]string{"hook", "session-start", "-config=/x/c.toml"}, []string{"hook", "session-start", "--config=/x/c.toml"}},
		{[]string{"token", "revoke", "ID", "-data", "d"}, []string{"token", "revoke", "ID", "--data", "d"}},
		{[]string{"sync", "-allow-mass-delete", "-dir", "t"}, []string{"sync", "--allow-mass-delete", "--dir", "t"}},
		{[]string{"sync", "-help"}, []string{"sync", "--help"}},
		{[]string{"-version"}, []string{"--version"}},
		{[]string{"-h"}, []string{"-h"}},
		{[]string{"-v"}, []string{"-v"}},
		// A flag's value and what follows "--" stay as they are.
		{[]string{"admin", "purge", "--reason", "-config", "-all"}, []string{"admin", "purge", "--reason", "-config", "--all"}},
		{[]string{"scan", "--", "-config"}, []string{"scan", "--", "-config"}},
		// An unknown flag is left for cobra to reject.
		{[]string{"run", "-frob"}, []string{"run", "-frob"}},
		// A positional argument named like a command is not one.
		{[]string{"show", "status", "-repo", "a/b"}, []string{"show", "status", "--repo", "a/b"}},
	}
	for _, tt := range tests {
		got := normaliseArgs(newRootCmd(realDeps()), tt.args)
		if !slices.Equal(got, tt.want) {
			t.Errorf("normaliseArgs(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
