package daemon

import (
	"errors"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// Config is the [daemon] section of the teammemd config file.
type Config struct {
	// Debounce is the quiet time after the last write before a push
	// (default 2s, 100ms to 1m).
	Debounce time.Duration `toml:"debounce"`
	// MaxWait caps how long a continuously edited directory waits before a
	// push anyway (default 10s, 100ms to 10m).
	MaxWait time.Duration `toml:"max_wait"`
	// Rescan is the interval of the safety rescan (default 5m, 10s to 24h).
	Rescan time.Duration `toml:"rescan"`
	// DiscoverClaudeProjects adds every Claude Code project memory directory
	// ($CLAUDE_CONFIG_DIR or ~/.claude, projects/*/memory/team) whose project
	// maps back to a git checkout with a remote.
	DiscoverClaudeProjects bool `toml:"discover_claude_projects"`
	// Repos are the repos to keep in sync, as [[daemon.repo]] tables.
	Repos []RepoConfig `toml:"repo"`
}

// RepoConfig is one [[daemon.repo]]: either a git checkout, whose slug and
// team directory are discovered, or an explicit dir and repo slug.
type RepoConfig struct {
	Checkout string `toml:"checkout"`
	Dir      string `toml:"dir"`
	Repo     string `toml:"repo"`
	// Server overrides the [client] server for this repo.
	Server string `toml:"server"`
	// TokenFile overrides the [client] token file for this repo.
	TokenFile string `toml:"token_file"`
}

// Validate checks the section for values that cannot work.
func (c Config) Validate() error {
	for _, b := range []durationBound{
		{"debounce", c.Debounce, 100 * time.Millisecond, time.Minute},
		{"max_wait", c.MaxWait, 100 * time.Millisecond, 10 * time.Minute},
		{"rescan", c.Rescan, 10 * time.Second, 24 * time.Hour},
	} {
		if err := b.check(); err != nil {
			return err
		}
	}
	if c.MaxWait > 0 && c.MaxWait < c.Debounce {
		return fmt.Errorf("daemon.max_wait (%s) must be at least daemon.debounce (%s)", c.MaxWait, c.Debounce)
	}
	for i, r := range c.Repos {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("daemon.repo[%d]: %w", i, err)
		}
	}
	return nil
}

// Validate checks that the repo names exactly one source, and its server
// URL, if any.
func (r RepoConfig) Validate() error {
	switch {
	case r.Checkout != "" && (r.Dir != "" || r.Repo != ""):
		return errors.New("set either checkout, or dir and repo, not both")
	case r.Checkout == "" && (r.Dir == "" || r.Repo == ""):
		return errors.New("set checkout, or both dir and repo")
	case r.Repo != "":
		if err := api.ValidateSlug(r.Repo); err != nil {
			return fmt.Errorf("repo %q: %w", r.Repo, err)
		}
	}
	if r.Server != "" {
		if err := memsync.ValidateServerURL(r.Server); err != nil {
			return fmt.Errorf("server: %w", err)
		}
	}
	return nil
}

// durationBound is the range a [daemon] duration must lie in when it is set
// (zero takes the default): below it the watcher would spin a core, above
// it edits would wait for hours.
type durationBound struct {
	name     string
	d        time.Duration
	min, max time.Duration
}

func (b durationBound) check() error {
	if b.d != 0 && (b.d < b.min || b.d > b.max) {
		return fmt.Errorf("daemon.%s must be between %s and %s, got %s", b.name, b.min, b.max, b.d)
	}
	return nil
}
