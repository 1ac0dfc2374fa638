package server

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		toml string
		ok   bool
	}{
		{"empty", ``, true},
		{"full", `listen = "0.0.0.0:8787"
data_dir = "/var/lib/teammemd"
organization_id = "acme"
max_waiters = 100
max_waiters_per_subject = 10
scan_secrets = false
trusted_proxies = ["127.0.0.1", "10.0.0.0/8"]
[limits]
max_entry_bytes = 1000
max_body_bytes = 4000
max_entries = 10
max_key_bytes = 100
max_key_segments = 4
max_wait = "30s"
max_history_page_bytes = 1000000
[rate_limit]
requests_per_second = 5.5
burst = 10
failed_auth_per_second = 0.5
failed_auth_burst = 5
[history]
keep_versions = 3
keep_for = "720h"
prune_interval = "10m"
[deletions]
keep_for = "2160h"
max_per_repo = 500`, true},
		{"rate limit off", "[rate_limit]\nrequests_per_second = -1", true},
		{"bad listen", `listen = "8787"`, false},
		{"listen port too large", `listen = "127.0.0.1:99999"`, false},
		{"listen port not a number", `listen = "127.0.0.1:abc"`, false},
		{"listen port negative", `listen = "127.0.0.1:-1"`, false},
		{"listen on any free port", `listen = "127.0.0.1:0"`, true},
		{"review", "[[repo]]\nname = \"acme/app\"\nreview = \"required\"\n[[repo]]\nname = \"acme/**\"\nreview = \"off\"", true},
		{"review typo", "[[repo]]\nname = \"acme/app\"\nreview = \"require\"", false},
		{"review bad name", "[[repo]]\nname = \"acme//app\"\nreview = \"required\"", false},
		{"review name of one segment", "[[repo]]\nname = \"acme\"\nreview = \"required\"", false},
		{"negative limit", "[limits]\nmax_entries = -1", false},
		{"wait too long", "[limits]\nmax_wait = \"11m\"", false},
		{"wait too short", "[limits]\nmax_wait = \"10ms\"", false},
		{"entry over body", "[limits]\nmax_entry_bytes = 10\nmax_body_bytes = 5", false},
		{"history page over what clients take", "[limits]\nmax_history_page_bytes = 4194305", false},
		{"history page at what clients take", "[limits]\nmax_history_page_bytes = 4194304", true},
		{"negative history page", "[limits]\nmax_history_page_bytes = -1", false},
		{"negative burst", "[rate_limit]\nburst = -1", false},
		{"failed auth limit off", "[rate_limit]\nfailed_auth_per_second = -1", true},
		{"failed auth rate not a number", "[rate_limit]\nfailed_auth_per_second = nan", false},
		{"negative failed auth burst", "[rate_limit]\nfailed_auth_burst = -1", false},
		{"trusted proxy by name", "trusted_proxies = [\"proxy.internal\"]", false},
		{"negative waiters", "max_waiters = -1", false},
		{"negative waiters per subject", "max_waiters_per_subject = -1", false},
		{"subject's share over the server's", "max_waiters = 10\nmax_waiters_per_subject = 11", false},
		{"subject's share of a default server", "max_waiters_per_subject = 10000", true},
		{"negative keep_for", "[history]\nkeep_for = \"-1h\"", false},
		{"fast pruning", "[history]\nprune_interval = \"1ms\"", false},
		{"negative marker cap", "[deletions]\nmax_per_repo = -1", false},
		{"markers kept a minute", "[deletions]\nkeep_for = \"1m\"", false},
		{"markers kept an hour", "[deletions]\nkeep_for = \"1h\"\nmax_per_repo = 1", true},
		{"tls", "tls_cert = \"/etc/teammemd/cert.pem\"\ntls_key = \"/etc/teammemd/key.pem\"", true},
		{"tls cert without key", "tls_cert = \"/etc/teammemd/cert.pem\"", false},
		{"tls key without cert", "tls_key = \"/etc/teammemd/key.pem\"", false},
	}
	for _, tt := range tests {
		var c Config
		md, err := toml.Decode(tt.toml, &c)
		if err != nil {
			t.Fatalf("%s: decode: %v", tt.name, err)
		}
		if u := md.Undecoded(); len(u) > 0 {
			t.Fatalf("%s: undecoded keys %v", tt.name, u)
		}
		if err := c.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

func TestConfigResolve(t *testing.T) {
	c := Config{}.Resolve()
	if c.Listen != DefaultListen || c.OrganizationID != DefaultOrganizationID || c.Limits.MaxEntries != 2000 ||
		c.Limits.MaxWait != 60*time.Second || c.Limits.MaxHistoryPageBytes != 4<<20 || !c.RateLimit.Enabled() || c.MaxWaiters != DefaultMaxWaiters ||
		c.History.KeepVersions != DefaultKeepVersions || !c.ScanEnabled() ||
		c.Deletions != (Deletions{KeepFor: 90 * 24 * time.Hour, MaxPerRepo: 2000}) {
		t.Errorf("Config{}.Resolve() = %+v, want the defaults", c)
	}
	if c.MaxWaitersPerSubject != DefaultMaxWaitersPerSubject {
		t.Errorf("Config{}.Resolve().MaxWaitersPerSubject = %d, want %d", c.MaxWaitersPerSubject, DefaultMaxWaitersPerSubject)
	}
	if got := (Config{MaxWaiters: 20}).Resolve().MaxWaitersPerSubject; got != 20 {
		t.Errorf("Config{MaxWaiters: 20}.Resolve().MaxWaitersPerSubject = %d, want 20 (no more than the server's cap)", got)
	}
	off := false
	c = Config{ScanSecrets: &off, RateLimit: RateLimit{RequestsPerSecond: -1}, History: Retention{KeepVersions: -1}}.Resolve()
	if c.ScanEnabled() || c.RateLimit.Enabled() || c.History.Enabled() {
		t.Errorf("Resolve() of turned-off features = %+v, want scan, rate limit and pruning off", c)
	}
}

// Settings are the validated config with its defaults; an invalid config
// makes none, and the zero Settings are the defaults of an empty config.
func TestSettings(t *testing.T) {
	if got, want := (Settings{}).Config(), (Config{}).Resolve(); !reflect.DeepEqual(got, want) {
		t.Errorf("Settings{}.Config() = %+v, want %+v", got, want)
	}
	s, err := Config{RateLimit: RateLimit{RequestsPerSecond: 5}, MaxWaiters: 20}.Settings()
	if err != nil {
		t.Fatalf("Settings() of a valid config = %v", err)
	}
	wantRate := RateLimit{RequestsPerSecond: 5, Burst: DefaultRateBurst, FailedAuthPerSecond: DefaultFailedAuthPerSecond, FailedAuthBurst: DefaultFailedAuthBurst}
	if got := s.Config(); got.RateLimit != wantRate || got.MaxWaitersPerSubject != 20 {
		t.Errorf("Settings().Config() = %+v, want rate 5 with the default burst and failed-auth limit, and 20 waits per subject", got)
	}
	if _, err := (Config{MaxWaiters: -1}).Settings(); err == nil || !strings.Contains(err.Error(), "max_waiters must not be negative, got -1") {
		t.Errorf("Settings() of max_waiters = -1 = %v, want the key and the value named", err)
	}
}

// FuzzConfig decodes arbitrary [server] sections: a config that validates
// must still validate once resolved, and resolving twice changes nothing.
func FuzzConfig(f *testing.F) {
	f.Add("listen = \"127.0.0.1:1\"\n[limits]\nmax_wait = \"30s\"")
	f.Add("[rate_limit]\nrequests_per_second = -1\nburst = 3")
	f.Add("[history]\nkeep_versions = -1\nkeep_for = \"1h\"")
	f.Add("[deletions]\nkeep_for = \"24h\"\nmax_per_repo = 10")
	f.Fuzz(func(t *testing.T, text string) {
		var c Config
		if _, err := toml.Decode(text, &c); err != nil || c.Validate() != nil {
			return
		}
		if _, err := c.Settings(); err != nil {
			t.Fatalf("Settings() of a valid config = %v", err)
		}
		r := c.Resolve()
		if err := r.Validate(); err != nil {
			t.Fatalf("Resolve() of a valid config is invalid: %v", err)
		}
		if rr := r.Resolve(); rr.Listen != r.Listen || rr.Limits != r.Limits || rr.RateLimit != r.RateLimit || rr.History != r.History || rr.Deletions != r.Deletions {
			t.Fatalf("Resolve() is not idempotent: %+v then %+v", r, rr)
		}
	})
}
