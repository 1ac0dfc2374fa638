package webui

import (
	"fmt"
	"net/url"
	"time"

	"github.com/teammemd/teammemd/internal/loopback"
)

// Defaults of [server.ui].
const (
	// DefaultStaleAfter flags the notes no one changed in 90 days.
	DefaultStaleAfter = 90 * 24 * time.Hour
	// DefaultSessionTTL is how long a browser stays signed in.
	DefaultSessionTTL = 12 * time.Hour
)

// Bounds of the settings.
const (
	minSessionTTL = time.Minute
	maxSessionTTL = 30 * 24 * time.Hour
)

// Config is the [server.ui] section: the web view of the team's memory.
type Config struct {
	// Enabled serves the view at /ui; true when unset.
	Enabled *bool `toml:"enabled"`
	// StaleAfter flags the notes not changed for this long.
	StaleAfter time.Duration `toml:"stale_after"`
	// SessionTTL is how long a sign-in lasts.
	SessionTTL time.Duration `toml:"session_ttl"`
	// Admins are the subjects (as the history names them: a token's
	// subject, "oidc:" and an email or sub) who may read the audit and
	// purge.
	Admins []string `toml:"admins"`
	// URL is the address browsers reach the server at, such as
	// https://memory.acme.com behind a reverse proxy: the OIDC provider
	// sends the browser back to URL/ui/signin/callback. Empty means the
	// address each request came to.
	URL string `toml:"url"`
}

// On reports whether the view is served.
func (c Config) On() bool { return c.Enabled == nil || *c.Enabled }

// Resolve returns c with every unset field given its default.
func (c Config) Resolve() Config {
	if c.StaleAfter == 0 {
		c.StaleAfter = DefaultStaleAfter
	}
	if c.SessionTTL == 0 {
		c.SessionTTL = DefaultSessionTTL
	}
	return c
}

// Validate reports the first invalid setting, named below [server].
func (c Config) Validate() error {
	if c.StaleAfter < 0 {
		return fmt.Errorf("ui.stale_after must not be negative, got %s", c.StaleAfter)
	}
	if c.SessionTTL != 0 && (c.SessionTTL < minSessionTTL || c.SessionTTL > maxSessionTTL) {
		return fmt.Errorf("ui.session_ttl must be between %s and %s, got %s", minSessionTTL, maxSessionTTL, c.SessionTTL)
	}
	for _, a := range c.Admins {
		if a == "" {
			return fmt.Errorf("ui.admins holds an empty subject")
		}
	}
	if c.URL == "" {
		return nil
	}
	if err := loopback.CheckURL("ui.url", c.URL); err != nil {
		return err
	}
	u, _ := url.Parse(c.URL)
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("ui.url %q must be a scheme and host only, such as https://memory.acme.com", c.URL)
	}
	return nil
}
