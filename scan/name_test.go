package scan

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
)

// A secret in a key's name is found by the rule that finds it in content,
// wherever the name puts it: the whole name, one segment, before the
// extension, after an underscore, or split over a directory and a file.
func TestKeyFindsSecretsInNames(t *testing.T) {
	s := newScanner(t, Config{})
	aws := scantest.AWSKey()
	tests := []struct {
		key, rule string
	}{
		{aws + ".md", "aws-access-token"},
		{"creds/" + aws + "/prod.md", "aws-access-token"},
		{"creds_" + aws + ".txt", "aws-access-token"},
		{"notes/ghp_" + "7ELSZgnu18FMTahov29GNUbipw3AHOVcjqx4.md", "github-pat"},
		{"api_token=" + "Zf3D0LXCM3EIMbgJpUNnkRtOfOuHznB.md", "generic-api-key"},
		{"api_token=/" + "Zf3D0LXCM3EIMbgJpUNnkRtOfOuHznB.md", "generic-api-key"},
		{"adafruit_key=" + "k3j9x8q2w7e6r5t4y1u0i9o8p7a6s5d4.md", "adafruit-api-key"},
		{"hooks.slack.com/services/" + "T0ABCDEF1/B0ABCDEF2/x9Qw8Er7Ty6Ui5Op4As3Df2G.md", "slack-webhook-url"},
	}
	for _, tt := range tests {
		fs, err := s.Key(context.Background(), tt.key)
		if err != nil {
			t.Fatal(err)
		}
		if !hasRule(fs, tt.rule) {
			t.Errorf("Key(%q) = %v, want a %s finding", tt.key, RuleIDs(fs), tt.rule)
			continue
		}
		for _, f := range fs {
			if f.File != api.RedactKey(tt.key) || f.Line != 0 || strings.Contains(f.Redacted+f.File, tt.key) {
				t.Errorf("Key(%q) finding = %+v, want the redacted key as File, line 0 and no name", tt.key, f)
			}
		}
	}
}

// Names a team writes are not secrets, even when they talk about them.
func TestKeyPassesOrdinaryNames(t *testing.T) {
	s := newScanner(t, Config{})
	for _, key := range []string{
		"MEMORY.md", "deploy/runbook.md", "api-design/auth-tokens.md", "notes/secret-rotation.md",
		"keys/ssh-key-setup.md", "2024-01-02-standup.md", "team/credentials-policy.md",
		"access_control/token_refresh_flow.md", "passwords/password_manager_howto.txt",
		"AKIA-format-explained.md", "aws/iam_access_key_rotation.md", "api/v2/endpoints_and_auth.md",
	} {
		fs, err := s.Key(context.Background(), key)
		if err != nil || len(fs) != 0 {
			t.Errorf("Key(%q) = %v, %v, want no finding", key, RuleIDs(fs), err)
		}
	}
}

func TestScanKeys(t *testing.T) {
	s := newScanner(t, Config{})
	aws := scantest.AWSKey()
	hits, err := s.ScanKeys(context.Background(), []string{"a.md", aws + ".md", "b/c.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || strings.Join(hits[aws+".md"], ",") != "aws-access-token" {
		t.Errorf("ScanKeys = %v, want only the AWS name, with aws-access-token", hits)
	}
}

// The client honours the user's own path allowlists ([scan] allow_paths and
// their .gitleaks.toml); with IgnorePathAllowlists, the server's setting, no
// path allowlist decides a verdict, and New warns once naming them.
func TestIgnorePathAllowlists(t *testing.T) {
	dir := t.TempDir()
	gl := writeFile(t, dir, "gitleaks.toml", "[extend]\nuseDefault = true\n\n"+
		"[[allowlists]]\npaths = ['''^docs/''']\n\n"+
		"[[allowlists]]\ncondition = \"AND\"\ntargetRules = [\"aws-access-token\"]\npaths = ['''^drafts/''']\nregexes = ['''AKIA''']\n")
	cfg := Config{GitleaksConfig: gl, AllowPaths: []string{`^fixtures/`}, AllowRegexes: []string{`^never$`}}
	note := []byte(scantest.AWSNote(scantest.AWSKey()))
	paths := []string{"fixtures/a.md", "docs/a.md", "drafts/a.md"}

	client := newScanner(t, cfg)
	for _, p := range paths {
		if fs, err := client.File(context.Background(), p, note); err != nil || len(fs) != 0 {
			t.Errorf("client File(%s) = %v, %v, want it allowlisted by the user's own path allowlist", p, RuleIDs(fs), err)
		}
	}
	var logs bytes.Buffer
	server := newScanner(t, cfg, IgnorePathAllowlists(), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	for _, p := range paths {
		if fs, err := server.File(context.Background(), p, note); err != nil || !hasRule(fs, "aws-access-token") {
			t.Errorf("server File(%s) = %v, %v, want an aws-access-token finding", p, RuleIDs(fs), err)
		}
	}
	if n := strings.Count(logs.String(), "path allowlists ignored"); n != 1 || !strings.Contains(logs.String(), "scan.allow_paths") || !strings.Contains(logs.String(), gl) {
		t.Errorf("New logged %q, want one warning naming scan.allow_paths and %s", logs.String(), gl)
	}
	if client.Fingerprint() == server.Fingerprint() {
		t.Error("client and server scanners share a fingerprint, want the ignored allowlists to change it")
	}
	quiet := newScanner(t, Config{}, IgnorePathAllowlists(), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if n := strings.Count(logs.String(), "path allowlists ignored"); n != 1 || quiet == nil {
		t.Errorf("New without path allowlists warned too: %q", logs.String())
	}
}

// teammemd scan scans each file's name below the scanned directory and
// reports a file whose name holds a secret by its redacted name.
func TestPathsScanNames(t *testing.T) {
	dir := t.TempDir()
	aws := scantest.AWSKey()
	if err := os.MkdirAll(filepath.Join(dir, "creds"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "creds/"+aws+".md", "plain notes\n")
	writeFile(t, dir, "clean.md", "plain notes\n")
	s := newScanner(t, Config{})
	fs, err := s.Paths(context.Background(), []string{dir, filepath.Join(dir, "creds", aws+".md")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.ToSlash(dir) + "/" + api.RedactKey("creds/"+aws+".md"),
		filepath.ToSlash(dir) + "/creds/" + api.RedactKey(aws+".md"),
	}
	if len(fs) != 2 || fs[0].File != want[0] && fs[0].File != want[1] || fs[1].File != want[0] && fs[1].File != want[1] || fs[0].File == fs[1].File {
		t.Errorf("Paths = %+v, want one finding each under %q", fs, want)
	}
	var out bytes.Buffer
	for _, format := range Formats {
		if err := Write(&out, format, fs); err != nil {
			t.Fatal(err)
		}
	}
	if leaks := scantest.Leaks(out.String(), aws, 8); len(leaks) > 0 {
		t.Errorf("the reports hold the secret: %v", leaks)
	}
}
