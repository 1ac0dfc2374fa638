package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every value a section's check refuses is named with the line of the
// file that sets it, as an unknown key is: a value set wrong, the table a
// key is missing from, each of several errors, a table of an array of
// tables by its own lines. A value that is right and that a check names
// beside the wrong one is not the line named.
func TestConfigValueErrorsNameTheirLine(t *testing.T) {
	isolateConfig(t)
	tests := []struct{ config, want string }{
		{"[daemon]\nrescan = 300\n", "line 2: daemon.rescan = 300 has no unit"},
		{"[[daemon.repo]]\ncheckout = \".\"\n[daemon]\nrescan = \"300\"\n", `line 4: daemon.rescan = "300" has no unit`},
		{"\n[daemon]\ndebounce = \"5m\"\n", "line 3: [daemon]: daemon.debounce must be between 100ms and 1m0s, got 5m0s"},
		{"[daemon]\ndebounce = \"5s\"\nmax_wait = \"1s\"\n", "line 3: [daemon]: daemon.max_wait (1s) must be at least daemon.debounce (5s)"},
		{"daemon.rescan = \"1s\"\n", "line 1: [daemon]: daemon.rescan must be between"},
		{"[[daemon.repo]]\ncheckout = \".\"\n\n[[daemon.repo]]\ndir = \"x\"\nrepo = \"a/b\"\nserver = \"ftp://x\"\n",
			`line 7: [daemon]: daemon.repo[1]: server: server URL "ftp://x" must be`},
		{"[[daemon.repo]]\ncheckout = \".\"\n\n[[daemon.repo]]\ndir = \"x\"\n\n[[daemon.repo]]\ncheckout = \"y\"\n",
			"line 5: [daemon]: daemon.repo[1]: set checkout, or both dir and repo"},
		{"[[daemon.repo]]\ndir = \"x\"\nrepo = \"acme\"\n", `line 3: [daemon]: daemon.repo[0]: repo "acme"`},
		{"[[daemon.repo]]\nserver = \"https://m.example.com\"\n", "line 1: [daemon]: daemon.repo[0]: set checkout, or both dir and repo"},
		{"[daemon]\nrescan = \"20s\"\n[[daemon.repo]]\nserver = \"https://m.example.com\"\n", "line 3: [daemon]: daemon.repo[0]: set checkout"},
		{"[client]\nserver = \"https://m.example.com\"\ntoken_file = \"token\"\n", `line 3: [client]: client.token_file "token" must be an absolute path`},
		{"[client]\nstate_dir = \"state\"\n", `line 2: [client]: client.state_dir "state" must be an absolute path`},
		{"client = { server = \"ftp://x\" }\n", `line 1: [client]: client.server: server URL "ftp://x" must be`},
		{"[scan]\nworkers = -1\nallow_paths = [\"(\"]\n", "line 3: [scan]: scan.allow_paths: error parsing regexp"},
		{"[scan]\nworkers = -1\nallow_paths = [\"(\"]\n", "\nline 2: scan.workers: -1 is negative"},
		{"[scan]\ndecode_depth = 11\n", "line 2: [scan]: scan.decode_depth: 11 out of range"},
		{"[login]\nstorage = \"disk\"\n", `line 2: [login]: login.storage: login storage "disk" is not one of`},
		{"# login\n[login]\nissuer = \"http://id.example.com\"\n", `line 3: [login]: login.issuer "http://id.example.com" must be https://`},
		{"[server]\nmax_waiters = 3\nmax_waiters_per_subject = 5\n", "line 3: [server]: max_waiters_per_subject (5) must not exceed max_waiters (3)"},
		{"[server]\nlisten = \":99999\"\n", `line 2: [server]: listen ":99999": the port "99999" is not a port number`},
		{"[server]\ntls_key = \"/k\"\n", "line 2: [server]: tls_cert and tls_key go together"},
		{"[server.auth.oidc]\nenabled = true\n", "line 2: [server]: auth.oidc: issuer is required when oidc is enabled"},
		{"[server.ui]\nsession_ttl = \"1s\"\n", "line 2: [server]: ui.session_ttl must be between"},
		{"[[server.repo]]\nname = \"a/*\"\n[[server.repo]]\nname = \"b/c\"\nreview = \"maybe\"\n", `line 5: [server]: repo[1].review "maybe"`},
	}
	for _, tt := range tests {
		path := writeConfig(t, tt.config)
		_, err := loadConfig(path)
		if err == nil || !strings.Contains(err.Error(), "config "+path+": ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("loadConfig(%q) = %v, want an error naming the file and saying %q", tt.config, err, tt.want)
		}
	}
}

// Whatever the file holds, decoding and validating it returns a config or
// an error, and never panics; an error of its values names lines of the
// file only.
func FuzzDecodeConfig(f *testing.F) {
	for _, seed := range []string{
		"[daemon]\nrescan = 300\n",
		"[[daemon.repo]]\ncheckout = \".\"\n\n[[daemon.repo]]\ndir = \"x\"\nrepo = \"a/b\"\nserver = \"ftp://x\"\n",
		"[scan]\nworkers = -1\nallow_paths = [\"(\"]\n",
		"client = { server = \"ftp://x\" }\n",
		"[server]\nmax_waiters = 3\nmax_waiters_per_subject = 5\n",
		"[[server.repo]]\nname = \"a/*\"\n[[server.repo]]\nname = \"b\"\nreview = \"maybe\"\n",
		"[server.auth.oidc]\nenabled = true\n",
		"daemon.rescan = \"1s\"\n[daemon.x]\ny = [{a = 1}, {a = 2}]\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		_, err := decodeConfig("config.toml", []byte(data))
		if err == nil {
			return
		}
		lines := strings.Count(data, "\n") + 1
		for _, m := range lineNumber.FindAllStringSubmatch(err.Error(), -1) {
			if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
				t.Errorf("decodeConfig(%q) = %v, names line %d of %d", data, err, n, lines)
			}
		}
	})
}

// lineNumber is a line of the file an error names.
var lineNumber = regexp.MustCompile(`(?:^|: )line (\d+):`)
