package daemon

import (
	"strings"
	"testing"
	"time"
)

// Every duration of the [daemon] section is bounded: a value that would spin
// a core (a rescan every 300 ns) or hold edits for hours is refused.
func TestConfigDurationBounds(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string // "" for valid
	}{
		{Config{}, ""},
		{Config{Debounce: 100 * time.Millisecond, MaxWait: 100 * time.Millisecond, Rescan: 10 * time.Second}, ""},
		{Config{Debounce: time.Minute, MaxWait: 10 * time.Minute, Rescan: 24 * time.Hour}, ""},
		{Config{Debounce: 5}, "daemon.debounce must be between 100ms and 1m0s, got 5ns"},
		{Config{Debounce: 50 * time.Millisecond}, "daemon.debounce must be between 100ms and 1m0s, got 50ms"},
		{Config{Debounce: 2 * time.Minute}, "daemon.debounce must be between 100ms and 1m0s, got 2m0s"},
		{Config{MaxWait: 10}, "daemon.max_wait must be between 100ms and 10m0s, got 10ns"},
		{Config{MaxWait: time.Hour}, "daemon.max_wait must be between 100ms and 10m0s, got 1h0m0s"},
		{Config{Rescan: 300}, "daemon.rescan must be between 10s and 24h0m0s, got 300ns"},
		{Config{Rescan: 5 * time.Second}, "daemon.rescan must be between 10s and 24h0m0s, got 5s"},
		{Config{Rescan: 48 * time.Hour}, "daemon.rescan must be between 10s and 24h0m0s, got 48h0m0s"},
		{Config{Debounce: -time.Second}, "daemon.debounce must be between 100ms and 1m0s, got -1s"},
		{Config{Debounce: 5 * time.Second, MaxWait: time.Second}, "daemon.max_wait (1s) must be at least daemon.debounce (5s)"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tt.want == "" && err != nil || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("Config{Debounce: %s, MaxWait: %s, Rescan: %s}.Validate() = %q, want %q",
				tt.cfg.Debounce, tt.cfg.MaxWait, tt.cfg.Rescan, got, tt.want)
		}
	}
}

// A repo's own server URL may not hold a user name or password either.
func TestRepoServerUserinfo(t *testing.T) {
	r := RepoConfig{Checkout: "/src/app", Server: "https://user:pa55word@teammemd.example.com"}
	err := (Config{Repos: []RepoConfig{r}}).Validate()
	if err == nil || strings.Contains(err.Error(), "pa55word") || !strings.Contains(err.Error(), "daemon.repo[0]") {
		t.Errorf("Validate() of a repo server with a password = %v, want a refusal naming the repo, without the password", err)
	}
}
