package memsync

import (
	"fmt"
	"net/url"
	"path/filepath"
)

// ClientConfig is the [client] section of teammemd's config file: where the
// server is and how the sync client authenticates and keeps its state.
type ClientConfig struct {
	// Server is the server's base URL (TEAMMEMD_SERVER overrides it).
	Server string `toml:"server"`
	// TokenFile holds the bearer token (TEAMMEMD_TOKEN overrides it).
	TokenFile string `toml:"token_file"`
	// StateDir is the state root (default $XDG_STATE_HOME/teammemd).
	StateDir string `toml:"state_dir"`
	// ShareUserNotes pushes notes of type user, which Claude Code's rules
	// make personal; by default they are held back.
	ShareUserNotes bool `toml:"share_user_notes"`
}

// Validate checks the section; every field is optional.
func (c ClientConfig) Validate() error {
	if c.Server != "" {
		u, err := url.Parse(c.Server)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("client.server %q must be an http:// or https:// URL", c.Server)
		}
	}
	if c.TokenFile != "" && !filepath.IsAbs(c.TokenFile) {
		return fmt.Errorf("client.token_file %q must be an absolute path", c.TokenFile)
	}
	if c.StateDir != "" && !filepath.IsAbs(c.StateDir) {
		return fmt.Errorf("client.state_dir %q must be an absolute path", c.StateDir)
	}
	return nil
}
