package main

import (
	"strings"
	"testing"
	"time"
)

// A duration written as a bare number would be read as nanoseconds; the
// config loader refuses it, naming its line, and shows the form with a unit.
func TestConfigDurationNeedsUnit(t *testing.T) {
	isolateConfig(t)
	tests := []struct{ config, want string }{
		{"[daemon]\nrescan = 300\n", `line 2: daemon.rescan = 300 has no unit`},
		{"[daemon]\nrescan = 300\n", `"300s"`},
		{"[daemon]\ndebounce = 5\n", `"5s"`},
		{"[daemon]\nmax_wait = 0.5\n", `"0.5s"`},
		{"[server.history]\nkeep_for = 720\n", `line 2: server.history.keep_for = 720 has no unit`},
		{"[server.history]\nprune_interval = 3600\n", `"3600s"`},
		{"[server.limits]\nmax_wait = 60\n", `"60s"`},
		{"[daemon]\ndebounce = \"5\"\n", `daemon.debounce = "5" has no unit: write a duration string such as "5s"`},
		{"[daemon]\nmax_wait = \"0.5\"\n", `"0.5s"`},
		{"[server.history]\nkeep_for = \"720\"\n", `server.history.keep_for = "720" has no unit`},
		{"[[daemon.repo]]\ncheckout = \".\"\n[daemon]\nrescan = \"300\"\n", `line 4: daemon.rescan = "300" has no unit`},
		{"[[server.repo]]\nname = \"a/b\"\n[[server.repo]]\nname = \"c/d\"\n[server.history]\nkeep_for = \"1h\"\nprune_interval = 60\n", `line 7: server.history.prune_interval = 60 has no unit`},
	}
	for _, tt := range tests {
		_, err := loadConfig(writeConfig(t, tt.config))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("loadConfig(%q) = %v, want an error containing %s", tt.config, err, tt.want)
		}
	}
	cfg, err := loadConfig(writeConfig(t, "[daemon]\nrescan = \"300s\"\ndebounce = \"5s\"\n[server.history]\nkeep_for = \"720h\"\n"))
	if err != nil || cfg.Daemon.Rescan != 300*time.Second || cfg.Daemon.Debounce != 5*time.Second || cfg.Server.History.KeepFor != 720*time.Hour {
		t.Errorf("loadConfig(durations with units) = %+v, %v, want 5m0s, 5s, 720h and no error", cfg.Daemon, err)
	}
}
