package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A bad [server] setting, from the config file or a flag, stops serve
// before it opens a database, with exit status 2 and one log record that
// names the key and the value, and the line of the file that sets it; a
// flag's has no line.
func TestServeBadSettingNamedOnce(t *testing.T) {
	tests := []struct {
		name, config string
		flags        []string
		want         []string // in the error, in order
	}{
		{"negative entry size", "[server.limits]\nmax_entry_bytes = -5\n", nil, []string{"line 2: ", "limits.max_entry_bytes", "-5"}},
		{"negative body size", "[server.limits]\nmax_body_bytes = -1\n", nil, []string{"line 2: ", "limits.max_body_bytes", "-1"}},
		{"negative entries", "[server.limits]\nmax_entries = -3\n", nil, []string{"line 2: ", "limits.max_entries", "-3"}},
		{"negative key size", "[server.limits]\nmax_key_bytes = -1\n", nil, []string{"line 2: ", "limits.max_key_bytes", "-1"}},
		{"negative key segments", "[server.limits]\nmax_key_segments = -2\n", nil, []string{"line 2: ", "limits.max_key_segments", "-2"}},
		{"entry over body", "[server.limits]\nmax_entry_bytes = 300\nmax_body_bytes = 200\n", nil, []string{"line 2: ", "limits.max_entry_bytes", "300", "limits.max_body_bytes", "200"}},
		{"long wait", "[server.limits]\nmax_wait = \"11m\"\n", nil, []string{"line 2: ", "limits.max_wait", "11m0s"}},
		{"short wait", "[server.limits]\nmax_wait = \"10ms\"\n", nil, []string{"line 2: ", "limits.max_wait", "10ms"}},
		{"rate not a number", "[server.rate_limit]\nrequests_per_second = nan\n", nil, []string{"line 2: ", "rate_limit.requests_per_second", "NaN"}},
		{"infinite rate", "[server.rate_limit]\nrequests_per_second = inf\n", nil, []string{"line 2: ", "rate_limit.requests_per_second", "+Inf"}},
		{"negative burst", "[server.rate_limit]\nburst = -1\n", nil, []string{"line 2: ", "rate_limit.burst", "-1"}},
		{"failed auth rate", "[server.rate_limit]\nfailed_auth_per_second = inf\n", nil, []string{"line 2: ", "rate_limit.failed_auth_per_second", "+Inf"}},
		{"negative failed auth burst", "[server.rate_limit]\nfailed_auth_burst = -3\n", nil, []string{"line 2: ", "rate_limit.failed_auth_burst", "-3"}},
		{"trusted proxy by name", "[server]\ntrusted_proxies = [\"proxy.internal\"]\n", nil, []string{"line 2: ", "trusted_proxies[0]", `"proxy.internal"`}},
		{"negative waiters", "[server]\nmax_waiters = -1\n", nil, []string{"line 2: ", "max_waiters", "-1"}},
		{"subject over server", "[server]\nmax_waiters = 10\nmax_waiters_per_subject = 11\n", nil, []string{"line 3: ", "max_waiters_per_subject", "11", "max_waiters", "10"}},
		{"negative keep_for", "[server.history]\nkeep_for = \"-1h\"\n", nil, []string{"line 2: ", "history.keep_for", "-1h0m0s"}},
		{"fast pruning", "[server.history]\nprune_interval = \"1ms\"\n", nil, []string{"line 2: ", "history.prune_interval", "1ms"}},
		{"negative marker cap", "[server.deletions]\nmax_per_repo = -2\n", nil, []string{"line 2: ", "deletions.max_per_repo", "-2"}},
		{"markers kept a second", "[server.deletions]\nkeep_for = \"1s\"\n", nil, []string{"line 2: ", "deletions.keep_for", "1s"}},
		{"negative personal bytes", "[server.personal]\nmax_bytes = -1\n", nil, []string{"line 2: ", "personal.max_bytes", "-1"}},
		{"negative personal entries", "[server.personal]\nmax_entries = -5\n", nil, []string{"line 2: ", "personal.max_entries", "-5"}},
		{"every auth mode off", "[server.auth]\ntokens = false\n", nil, []string{"line 2: ", "auth", "every mode is off"}},
		{"failure cache ttl", "[server.auth]\nfailure_cache_ttl = \"2h\"\n", nil, []string{"line 2: ", "auth.failure_cache_ttl", "2h0m0s"}},
		{"failure cache size", "[server.auth]\nfailure_cache_size = -1\n", nil, []string{"line 2: ", "auth.failure_cache_size", "-1"}},
		{"checks in flight", "[server.auth]\nmax_checks_in_flight = -2\n", nil, []string{"line 2: ", "auth.max_checks_in_flight", "-2"}},
		{"keys fetched too often", oidcOn + "jwks_refresh_interval = \"10ms\"\n", nil, []string{"line 9: ", "auth.oidc: jwks_refresh_interval", "10ms"}},
		{"issuer over plain http", strings.Replace(oidcOn, "https://login", "http://login", 1), nil, []string{"line 7: ", "auth.oidc: issuer", `"http://login.acme.com"`, "https://"}},
		{"GitHub API over plain http", "[server.auth.github]\nenabled = true\napi_url = \"http://github.acme.com/api/v3\"\n", nil, []string{"line 3: ", "auth.github: api_url", `"http://github.acme.com/api/v3"`, "https://"}},
		{"profile over plain http", "[server.auth.claude]\nenabled = true\nprofile_url = \"http://10.0.0.5/p\"\n", nil, []string{"line 3: ", "auth.claude: profile_url", `"http://10.0.0.5/p"`, "https://"}},
		{"listen from the file", "[server]\nlisten = \"8787\"\n", nil, []string{"line 2: ", "listen", `"8787"`}},
		{"listen from a flag", "", []string{"--listen", "nope"}, []string{"listen", `"nope"`}},
		{"listen from a flag over the file's", "[server]\nlisten = \"127.0.0.1:0\"\n", []string{"--listen", "nope"}, []string{"listen", `"nope"`}},
		{"certificate from a flag without a key", "", []string{"--tls-cert", "/nonexistent/cert.pem"}, []string{"tls_cert", "tls_key"}},
		{"key in the file, no certificate", "[server]\ntls_key = \"/nonexistent/key.pem\"\n", nil, []string{"line 2: ", "tls_cert", "tls_key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateConfig(t)
			data := filepath.Join(t.TempDir(), "data")
			args := append([]string{"serve", "--data", data, "--config", writeConfig(t, tt.config)}, tt.flags...)
			if !strings.Contains(tt.config, "listen") && !slices.Contains(tt.flags, "--listen") {
				args = append(args, "--listen", "127.0.0.1:0")
			}
			stdout, stderr, code := runCLIWithin(t, time.Minute, args...)
			if code != exitConfig || stdout != "" {
				t.Errorf("teammemd serve with %s = exit %d, stdout %q, want %d and nothing", tt.name, code, stdout, exitConfig)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if len(lines) != 1 {
				t.Fatalf("teammemd serve with %s: stderr has %d lines, want the error once:\n%s", tt.name, len(lines), stderr)
			}
			var rec struct{ Level, Msg, Err string }
			if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec.Level != "ERROR" || rec.Msg != "serve failed" {
				t.Fatalf("teammemd serve with %s: stderr %q, want one JSON record \"serve failed\"", tt.name, lines[0])
			}
			if tt.flags != nil && strings.Contains(rec.Err, "line ") {
				t.Errorf("teammemd serve with %s: error %q names a line of the file, want none for a flag's value", tt.name, rec.Err)
			}
			rest := rec.Err
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("teammemd serve with %s: error %q does not name %q (want %q in order)", tt.name, rec.Err, w, tt.want)
				}
				rest = rest[i+len(w):]
			}
			if _, err := os.Stat(data); err == nil {
				t.Errorf("teammemd serve with %s created %s, want no database for a bad setting", tt.name, data)
			}
		})
	}
}

// oidcOn is a [server.auth.oidc] section that turns OIDC on, for a test to
// add a key to.
const oidcOn = "[[server.auth.grants]]\nsubject = \"group:eng\"\nrepos = [\"acme/**\"]\nlevel = \"read\"\n" +
	"[server.auth.oidc]\nenabled = true\nissuer = \"https://login.acme.com\"\nclient_id = \"teammemd\"\n"

// runCLIWithin runs teammemd with args in this process, as runCLI does, and
// stops it after d: a command that should have failed at once and is still
// running then ends with exit status 0.
func runCLIWithin(t *testing.T, d time.Duration, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var out, errOut bytes.Buffer
	err := run(ctx, args, &out, &errOut)
	code = exitCode(ctx, err, &errOut)
	return out.String(), errOut.String(), code
}
