package server

import (
	"errors"
	"fmt"
	"math"
	"net"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/webui"
)

// Defaults of the [server] configuration section.
const (
	DefaultListen         = "127.0.0.1:8787"
	DefaultOrganizationID = "default"
	DefaultMaxWaiters     = 10_000
	// DefaultMaxWaitersPerSubject lets one token subject hold 100 change
	// waits: a daemon holds one per repo it syncs, so this covers a person
	// or machine syncing dozens of repos from a few machines, and at the
	// default max_waiters it takes 100 subjects to fill the server.
	DefaultMaxWaitersPerSubject = 100
	DefaultRatePerSecond        = 50
	DefaultRateBurst            = 100
	// DefaultFailedAuthPerSecond and DefaultFailedAuthBurst let one client
	// address fail authentication 10 times at once, then once every 10 s.
	DefaultFailedAuthPerSecond = 0.1
	DefaultFailedAuthBurst     = 10
	DefaultKeepVersions        = 50
	DefaultPruneInterval       = time.Hour
	// DefaultKeepDeletedFor and DefaultMaxDeletedPerRepo bound a repo's
	// deletion markers: 90 days, and as many as the live entries' cap.
	DefaultKeepDeletedFor    = 90 * 24 * time.Hour
	DefaultMaxDeletedPerRepo = api.DefaultMaxEntries
)

// minKeepDeletedFor is the shortest retention of deletion markers a
// config may set.
const minKeepDeletedFor = time.Hour

// Config is the [server] section of the teammemd config file. A zero field
// takes its default; Resolve returns the config with every default filled in.
type Config struct {
	// Listen is the TCP address to serve on, host:port.
	Listen string `toml:"listen"`
	// DataDir holds the embedded SQLite database.
	DataDir string `toml:"data_dir"`
	// Store, when set, is the postgres:// URL of a PostgreSQL database that
	// several server replicas share; DataDir is then unused.
	Store string `toml:"store"`
	// OrganizationID is sent as organizationId in every body.
	OrganizationID string `toml:"organization_id"`
	// Limits are the protocol limits ([server.limits]).
	Limits api.Limits `toml:"limits"`
	// RateLimit bounds requests per authenticated subject, and failed
	// authentications per client address ([server.rate_limit]).
	RateLimit RateLimit `toml:"rate_limit"`
	// MaxWaiters caps concurrent change waits; over it a wait gets 503.
	MaxWaiters int `toml:"max_waiters"`
	// MaxWaitersPerSubject caps the concurrent change waits of one token
	// subject, so that no one client can take every slot; over it a wait
	// gets 429. Resolve lowers it to MaxWaiters.
	MaxWaitersPerSubject int `toml:"max_waiters_per_subject"`
	// History is the retention of entry history ([server.history]).
	History Retention `toml:"history"`
	// Deletions bounds each repo's deletion markers ([server.deletions]).
	Deletions Deletions `toml:"deletions"`
	// ScanSecrets refuses PUTs whose values hold a secret; true when unset.
	ScanSecrets *bool `toml:"scan_secrets"`
	// MCP serves the Model Context Protocol endpoint at /mcp; true when
	// unset.
	MCP *bool `toml:"mcp"`
	// TLSCert and TLSKey are PEM files of the certificate (with its chain)
	// and private key to serve HTTPS with; both empty serves plain HTTP.
	TLSCert string `toml:"tls_cert"`
	TLSKey  string `toml:"tls_key"`
	// Auth says which credentials the server accepts ([server.auth]).
	Auth auth.Config `toml:"auth"`
	// TrustedProxies are the addresses or CIDR prefixes of the reverse
	// proxies in front of the server: for a request from one of them, the
	// client's address is read from X-Forwarded-For.
	TrustedProxies []string `toml:"trusted_proxies"`
	// UI is the web view at /ui ([server.ui]).
	UI webui.Config `toml:"ui"`
	// Repos are per-repo settings ([[server.repo]]), such as review.
	Repos []RepoConfig `toml:"repo"`
	// Personal is the personal lane ([server.personal]).
	Personal Personal `toml:"personal"`
}

// TLS reports whether the server serves HTTPS.
func (c Config) TLS() bool { return c.TLSCert != "" }

// RateLimit is a token bucket per authenticated subject, and one per client
// address for the requests whose credential is not accepted.
type RateLimit struct {
	// RequestsPerSecond is the sustained rate; a negative value turns the
	// limit off.
	RequestsPerSecond float64 `toml:"requests_per_second"`
	// Burst is the bucket size.
	Burst int `toml:"burst"`
	// FailedAuthPerSecond is the sustained rate of requests per client
	// address whose credential is not accepted; a negative value turns the
	// limit off.
	FailedAuthPerSecond float64 `toml:"failed_auth_per_second"`
	// FailedAuthBurst is the size of each address's bucket of failures.
	FailedAuthBurst int `toml:"failed_auth_burst"`
}

// Enabled reports whether requests are limited.
func (r RateLimit) Enabled() bool { return r.RequestsPerSecond > 0 && r.Burst > 0 }

// Retention says how long the content of old entry revisions is kept. The
// record of a revision (version, checksum, subject, time) is always kept.
type Retention struct {
	// KeepVersions keeps the content of the newest N revisions of each key;
	// a negative value keeps all content and turns pruning off.
	KeepVersions int `toml:"keep_versions"`
	// KeepFor also keeps the content of every revision younger than this.
	KeepFor time.Duration `toml:"keep_for"`
	// PruneInterval is how often pruning runs.
	PruneInterval time.Duration `toml:"prune_interval"`
}

// Enabled reports whether old content is pruned.
func (r Retention) Enabled() bool { return r.KeepVersions > 0 }

// Deletions bounds the deletion markers (tombstones) of each repo: a write
// compacts those over the bound, oldest first (PROTOCOL.md section 12).
type Deletions struct {
	// KeepFor is how long a marker is kept.
	KeepFor time.Duration `toml:"keep_for"`
	// MaxPerRepo is the most markers a repo keeps.
	MaxPerRepo int `toml:"max_per_repo"`
}

// Bound is the store's form of d.
func (d Deletions) Bound() store.DeletionBound {
	return store.DeletionBound{KeepFor: d.KeepFor, Max: d.MaxPerRepo}
}

// ScanEnabled reports whether the server scans PUT values for secrets.
func (c Config) ScanEnabled() bool { return c.ScanSecrets == nil || *c.ScanSecrets }

// MCPEnabled reports whether the server serves /mcp.
func (c Config) MCPEnabled() bool { return c.MCP == nil || *c.MCP }

// Resolve returns c with every unset field given its default.
func (c Config) Resolve() Config {
	def := api.DefaultLimits()
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.OrganizationID == "" {
		c.OrganizationID = DefaultOrganizationID
	}
	setDefault(&c.Limits.MaxEntryBytes, def.MaxEntryBytes)
	setDefault(&c.Limits.MaxBodyBytes, def.MaxBodyBytes)
	setDefault(&c.Limits.MaxEntries, def.MaxEntries)
	setDefault(&c.Limits.MaxKeyBytes, def.MaxKeyBytes)
	setDefault(&c.Limits.MaxKeySegments, def.MaxKeySegments)
	setDefault(&c.Limits.MaxWait, def.MaxWait)
	setDefault(&c.Limits.MaxHistoryPageBytes, def.MaxHistoryPageBytes)
	setDefault(&c.RateLimit.RequestsPerSecond, DefaultRatePerSecond)
	setDefault(&c.RateLimit.Burst, DefaultRateBurst)
	setDefault(&c.RateLimit.FailedAuthPerSecond, DefaultFailedAuthPerSecond)
	setDefault(&c.RateLimit.FailedAuthBurst, DefaultFailedAuthBurst)
	setDefault(&c.MaxWaiters, DefaultMaxWaiters)
	setDefault(&c.MaxWaitersPerSubject, DefaultMaxWaitersPerSubject)
	c.MaxWaitersPerSubject = min(c.MaxWaitersPerSubject, c.MaxWaiters)
	setDefault(&c.History.KeepVersions, DefaultKeepVersions)
	setDefault(&c.History.PruneInterval, DefaultPruneInterval)
	setDefault(&c.Deletions.KeepFor, DefaultKeepDeletedFor)
	setDefault(&c.Deletions.MaxPerRepo, DefaultMaxDeletedPerRepo)
	c.UI = c.UI.Resolve()
	c.Personal = c.Personal.Resolve()
	return c
}

func setDefault[T int | int64 | float64 | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}

// validListen checks a listen address: a host, which may be empty, and a
// port number from 0 (any free port) to 65535, or a service name.
func validListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("the port %q is not a port number from 0 to 65535", port)
	}
	return nil
}

// Validate reports the first invalid setting, naming its key below
// [server] and its value. Zero values are valid: they stand for the
// defaults.
func (c Config) Validate() error {
	if c.Listen != "" {
		if err := validListen(c.Listen); err != nil {
			return fmt.Errorf("listen %q: %w", c.Listen, err)
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New("tls_cert and tls_key go together: set both to serve HTTPS, or neither")
	}
	if err := validateLimits(c.Limits); err != nil {
		return err
	}
	if err := c.Auth.Validate(); err != nil {
		return err
	}
	if err := validateRateLimit(c.RateLimit); err != nil {
		return err
	}
	if _, err := parseProxies(c.TrustedProxies); err != nil {
		return err
	}
	if err := c.validateWaiters(); err != nil {
		return err
	}
	if err := validateDeletions(c.Deletions); err != nil {
		return err
	}
	if err := c.UI.Validate(); err != nil {
		return err
	}
	if err := validateRepos(c.Repos); err != nil {
		return err
	}
	if err := c.Personal.Validate(); err != nil {
		return err
	}
	return validateRetention(c.History)
}

// notNegative reports a negative value of key.
func notNegative[T int | int64 | time.Duration](key string, v T) error {
	if v < 0 {
		return fmt.Errorf("%s must not be negative, got %v", key, v)
	}
	return nil
}

// maxWaitCeiling bounds the configurable change wait, so a wait always ends
// well within the server's write timeout.
const maxWaitCeiling = 10 * time.Minute

func validateLimits(l api.Limits) error {
	for _, err := range []error{
		notNegative("limits.max_entry_bytes", l.MaxEntryBytes),
		notNegative("limits.max_body_bytes", l.MaxBodyBytes),
		notNegative("limits.max_entries", l.MaxEntries),
		notNegative("limits.max_key_bytes", l.MaxKeyBytes),
		notNegative("limits.max_key_segments", l.MaxKeySegments),
		notNegative("limits.max_history_page_bytes", l.MaxHistoryPageBytes),
	} {
		if err != nil {
			return err
		}
	}
	switch {
	case l.MaxWait != 0 && (l.MaxWait < time.Second || l.MaxWait > maxWaitCeiling):
		return fmt.Errorf("limits.max_wait must be between 1s and %s, got %s", maxWaitCeiling, l.MaxWait)
	case l.MaxEntryBytes > 0 && l.MaxBodyBytes > 0 && int64(l.MaxEntryBytes) > l.MaxBodyBytes:
		return fmt.Errorf("limits.max_entry_bytes (%d) must not exceed limits.max_body_bytes (%d)", l.MaxEntryBytes, l.MaxBodyBytes)
	case l.MaxHistoryPageBytes > api.DefaultMaxHistoryPageBytes:
		return fmt.Errorf("limits.max_history_page_bytes must be at most %d, what clients take, got %d", api.DefaultMaxHistoryPageBytes, l.MaxHistoryPageBytes)
	}
	return nil
}

func validateRateLimit(r RateLimit) error {
	for _, rate := range []struct {
		key string
		v   float64
	}{{"rate_limit.requests_per_second", r.RequestsPerSecond}, {"rate_limit.failed_auth_per_second", r.FailedAuthPerSecond}} {
		if math.IsNaN(rate.v) || math.IsInf(rate.v, 0) {
			return fmt.Errorf("%s must be a number of requests, or -1 for no limit, got %v", rate.key, rate.v)
		}
	}
	if err := notNegative("rate_limit.burst", r.Burst); err != nil {
		return err
	}
	return notNegative("rate_limit.failed_auth_burst", r.FailedAuthBurst)
}

func (c Config) validateWaiters() error {
	if err := notNegative("max_waiters", c.MaxWaiters); err != nil {
		return err
	}
	if err := notNegative("max_waiters_per_subject", c.MaxWaitersPerSubject); err != nil {
		return err
	}
	if c.MaxWaiters > 0 && c.MaxWaitersPerSubject > c.MaxWaiters {
		return fmt.Errorf("max_waiters_per_subject (%d) must not exceed max_waiters (%d)", c.MaxWaitersPerSubject, c.MaxWaiters)
	}
	return nil
}

func validateRetention(r Retention) error {
	if err := notNegative("history.keep_for", r.KeepFor); err != nil {
		return err
	}
	if err := notNegative("history.prune_interval", r.PruneInterval); err != nil {
		return err
	}
	if r.PruneInterval > 0 && r.PruneInterval < time.Second {
		return fmt.Errorf("history.prune_interval must be at least 1s, got %s", r.PruneInterval)
	}
	return nil
}

func validateDeletions(d Deletions) error {
	if err := notNegative("deletions.max_per_repo", d.MaxPerRepo); err != nil {
		return err
	}
	if d.KeepFor != 0 && d.KeepFor < minKeepDeletedFor {
		return fmt.Errorf("deletions.keep_for must be at least %s, got %s", minKeepDeletedFor, d.KeepFor)
	}
	return nil
}

// Settings are a Config validated, with every default filled in: what a
// Server runs with. Config.Settings is the only way to make them, so a
// Server is built from settings checked once; the zero Settings are the
// defaults.
type Settings struct {
	c   Config
	set bool
}

// Settings validates c and fills in every default.
func (c Config) Settings() (Settings, error) {
	if err := c.Validate(); err != nil {
		return Settings{}, err
	}
	return Settings{c: c.Resolve(), set: true}, nil
}

// Config returns the settings with every default filled in.
func (s Settings) Config() Config {
	if !s.set {
		return Config{}.Resolve()
	}
	return s.c
}
