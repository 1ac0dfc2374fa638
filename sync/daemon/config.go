package daemon

import (
	"errors"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// Config is the [daemon] section of the teammemd config file.
type Config struct {
	// Debounce is the quiet time after the last write before a push
	// (default 2s).
	Debounce time.Duration `toml:"debounce"`
	// MaxWait caps how long a continuously edited directory waits before a
	// push anyway (default 10s).
	MaxWait time.Duration `toml:"max_wait"`
	// Rescan is the interval of the safety rescan (default 5m).
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
	for name, d := range map[string]time.Duration{"debounce": c.Debounce, "max_wait": c.MaxWait, "rescan": c.Rescan} {
		if d < 0 {
			return fmt.Errorf("daemon.%s must not be negative, got %s", name, d)
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

// Validate checks that the repo names exactly one source.
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
	return nil
}
