package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/scan"
)

func TestScanCommandExitCodes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	clean := filepath.Join(home, "clean")
	dirty := filepath.Join(home, "dirty")
	secret := "AK" + "IAZ52HGXYRN4WBTEST"
	for dir, text := range map[string]string{clean: "# Notes\nThe token lives in Vault.\n", dirty: "key: " + secret + "\n"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	allowCfg := filepath.Join(home, "allow.toml")
	if err := os.WriteFile(allowCfg, []byte("[scan]\nallow_regexes = ['TEST$']\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badCfg := filepath.Join(home, "bad.toml")
	if err := os.WriteFile(badCfg, []byte("[scan]\nallow_regexes = ['(']\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"scan", clean}, 0},
		{[]string{"scan", dirty}, 1},
		{[]string{"scan", "--format", "json", dirty}, 1},
		{[]string{"scan", "--format", "sarif", clean, dirty}, 1},
		{[]string{"scan", "--cache", "", dirty}, 1},
		{[]string{"scan", "--config", allowCfg, dirty}, 0},
		{[]string{"scan", "--config", badCfg, dirty}, 2},
		{[]string{"scan"}, 2},
		{[]string{"scan", "--format", "xml", clean}, 2},
		{[]string{"scan", "--bogus", clean}, 2},
		{[]string{"scan", filepath.Join(home, "missing")}, 2},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, &stdout, &stderr)
		got := exitCode(context.Background(), err, &stderr)
		if got != tt.want {
			t.Errorf("run(%q) exit = %d, want %d (stderr %q)", tt.args, got, tt.want, stderr.String())
		}
		if all := stdout.String() + stderr.String(); strings.Contains(all, secret) {
			t.Errorf("run(%q) printed the secret", tt.args)
		}
		if len(tt.args) > 2 && tt.args[1] == "--format" && tt.args[2] == "json" && tt.want == 1 && !json.Valid(stdout.Bytes()) {
			t.Errorf("run(%q) stdout is not JSON: %q", tt.args, stdout.String())
		}
	}
}

// The example configs load, from any directory: the rules file the
// extending one names is found beside it.
func TestScanExampleConfigsLoad(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, name := range []string{filepath.Join(root, "configs/scan-default.toml"), filepath.Join(root, "configs/scan-extend.toml")} {
		cfg, err := loadConfig(name)
		if err != nil {
			t.Errorf("loadConfig(%s) = %v", name, err)
			continue
		}
		if _, err := scan.New(cfg.Scan); err != nil {
			t.Errorf("scan.New(%s) = %v", name, err)
		}
	}
}

// A path that cannot be read does not hide what the others hold: their
// findings are reported, the path is named, and the exit says secrets
// were found; with no finding, the path's error exits 2.
func TestScanReportsFindingsBesideAMissingPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	dirty, clean, missing := filepath.Join(home, "dirty"), filepath.Join(home, "clean"), filepath.Join(home, "missing")
	secret := "AK" + "IAZ52HGXYRN4WBTEST"
	for _, dir := range []string{dirty, clean} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dirty, "a.md"), "key: "+secret+"\n", 0o600)
	writeFile(t, filepath.Join(clean, "a.md"), "# Notes\n", 0o600)
	for _, tt := range []struct {
		args    []string
		want    int
		finding bool
	}{
		{[]string{"scan", dirty, missing}, 1, true},
		{[]string{"scan", missing, dirty}, 1, true},
		{[]string{"scan", clean, missing}, 2, false},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, &stdout, &stderr)
		got := exitCode(context.Background(), err, &stderr)
		if got != tt.want || strings.Contains(stdout.String(), "aws-access-token") != tt.finding || !strings.Contains(stderr.String(), missing) {
			t.Errorf("run(%q) = exit %d, stdout %q, stderr %q; want exit %d, the finding reported: %v, the missing path named",
				tt.args, got, stdout.String(), stderr.String(), tt.want, tt.finding)
		}
	}
}
