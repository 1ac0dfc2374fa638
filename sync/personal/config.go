package personal

// Config is the [personal] section of teammemd's config file: whether the
// daemon syncs the personal lanes, and which.
type Config struct {
	// Enabled, when false, keeps the daemon from syncing any personal
	// lane; unset, a lane runs for every server this machine holds a
	// personal key of (teammemd personal init or join).
	Enabled *bool `toml:"enabled"`
	// UserFiles adds the lane of Claude Code's user-level files:
	// CLAUDE.md and rules/**/*.md in its config directory.
	UserFiles bool `toml:"user_files"`
}

// On reports whether personal lanes may run.
func (c Config) On() bool { return c.Enabled == nil || *c.Enabled }
