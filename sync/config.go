package memsync

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/teammemd/teammemd/internal/loopback"
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
	// AllowInsecure lets the client send its token over plain http:// to a
	// host that is not loopback (see CheckServer).
	AllowInsecure bool `toml:"allow_insecure"`
	// ShareUserNotes pushes notes of type user, which Claude Code's rules
	// make personal; by default they are held back.
	ShareUserNotes bool `toml:"share_user_notes"`
}

// CheckServer refuses a server URL that ValidateServerURL refuses (not
// http:// or https://, a user name or password in it), and one over which
// the token would cross the network in the clear: plain http:// to a host
// other than localhost or a loopback address, unless AllowInsecure is set.
func (c ClientConfig) CheckServer(server string) error {
	if err := ValidateServerURL(server); err != nil {
		return err
	}
	u, err := url.Parse(server)
	if err != nil {
		return fmt.Errorf("server URL %q: %w", server, err)
	}
	if u.Scheme != "http" || c.AllowInsecure || loopback.Is(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("refusing to send the API token to %s over plain http://: %s is not a loopback address, "+
		"so anyone on the network path could read the token; use an https:// server URL, "+
		"or set allow_insecure = true in the [client] section of the config if the network is trusted", server, u.Hostname())
}

// Validate checks the section; every field is optional.
func (c ClientConfig) Validate() error {
	if c.Server != "" {
		if err := ValidateServerURL(c.Server); err != nil {
			return fmt.Errorf("client.server: %w", err)
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

// ValidateServerURL checks a server URL of the config: http:// or https://
// with a host, and no user name or password. Its error never shows a
// password.
func ValidateServerURL(server string) error {
	u, err := url.Parse(server)
	if err != nil {
		return errors.New("the server URL does not parse (not shown: it may hold a password); want an http:// or https:// URL")
	}
	if err := noUserinfo(u); err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("server URL %q must be an http:// or https:// URL", server)
	}
	return nil
}

// noUserinfo refuses a URL with a user name or password in it: teammemd
// authenticates with a token, and a password in the URL would be sent,
// logged and shown. The error names the URL without them.
func noUserinfo(u *url.URL) error {
	if u.User == nil {
		return nil
	}
	bare := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return fmt.Errorf("server URL %s holds a user name or password (not shown): teammemd authenticates with an API token instead; "+
		"take them out of the URL, and give the token with teammemd login, --token-file or TEAMMEMD_TOKEN", bare.String())
}
