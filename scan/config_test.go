package scan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// awsNote carries one AWS access key id, assembled so this file holds none.
var awsNote = "deploy key: " + "AK" + "IAZ52HGXYRN4WBTEST" + "\n"

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const customRule = `
[[rules]]
id = "acme-token"
description = "ACME internal token"
regex = '''acme_[a-z0-9]{16}'''
keywords = ["acme_"]
`

func TestRulesetExtendAndReplace(t *testing.T) {
	dir := t.TempDir()
	acme := "token acme_" + "q8w7e6r5t4y3u2i1\n"
	tests := []struct {
		name, toml string
		wantAWS    bool
		wantACME   bool
	}{
		{"default", "", true, false},
		{"replace", customRule, false, true},
		{"extend", "[extend]\nuseDefault = true\n" + customRule, true, true},
		{"extend disabled", "[extend]\nuseDefault = true\ndisabledRules = [\"aws-access-token\"]\n" + customRule, false, true},
	}
	for _, tt := range tests {
		cfg := Config{}
		if tt.toml != "" {
			cfg.GitleaksConfig = writeFile(t, dir, strings.ReplaceAll(tt.name, " ", "-")+".toml", tt.toml)
		}
		s := newScanner(t, cfg)
		hits, err := s.ScanEntries(context.Background(), map[string]string{"a.md": awsNote, "b.md": acme})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(append(hits["a.md"], hits["b.md"]...), ",")
		if strings.Contains(got, "aws-access-token") != tt.wantAWS || strings.Contains(got, "acme-token") != tt.wantACME {
			t.Errorf("%s: ScanEntries = %q, want aws %v acme %v", tt.name, got, tt.wantAWS, tt.wantACME)
		}
	}
}

func TestAllowlistsAndInlineAllow(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		path  string
		text  string
		found bool
	}{
		{"plain", Config{}, "a.md", awsNote, true},
		{"allow path", Config{AllowPaths: []string{`^fixtures/`}}, "fixtures/a.md", awsNote, false},
		{"allow path other", Config{AllowPaths: []string{`^fixtures/`}}, "notes/a.md", awsNote, true},
		{"allow regex", Config{AllowRegexes: []string{`TEST$`}}, "a.md", awsNote, false},
		{"allow stopword", Config{AllowStopwords: []string{"wbtest"}}, "a.md", awsNote, false},
		{"inline allow ignored", Config{}, "a.md", strings.TrimSuffix(awsNote, "\n") + " # gitleaks:allow\n", true},
		{"inline allow honoured", Config{HonorInlineAllow: true}, "a.md", strings.TrimSuffix(awsNote, "\n") + " # gitleaks:allow\n", false},
	}
	for _, tt := range tests {
		s := newScanner(t, tt.cfg)
		fs, err := s.File(context.Background(), tt.path, []byte(tt.text))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(fs) > 0; got != tt.found {
			t.Errorf("%s: File(%s) found = %v, want %v (%v)", tt.name, tt.path, got, tt.found, fs)
		}
	}
}

func TestBrokenRulesetIsAnError(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, toml, want string }{
		{"syntax", "[[rules]\nid = ", "gitleaks config"},
		{"bad regex", "[[rules]]\nid = \"x\"\nregex = '''(unclosed'''\n", `rule "x": regex`},
		{"no regex", "[[rules]]\nid = \"x\"\n", "no effect"},
		{"bad condition", customRule + "[[allowlists]]\ncondition = \"xor\"\nregexes = ['a']\n", "unknown condition"},
		{"both extends", "[extend]\nuseDefault = true\npath = \"other.toml\"\n" + customRule, "both set"},
		{"missing extend", "[extend]\npath = \"nope.toml\"\n" + customRule, "extend"},
		{"empty", "title = \"nothing\"\n", "no rules"},
		{"unknown target", customRule + "[[allowlists]]\ntargetRules = [\"nope\"]\nregexes = ['a']\n", "target rule"},
	}
	for _, tt := range tests {
		path := writeFile(t, dir, "broken.toml", tt.toml)
		_, err := New(Config{GitleaksConfig: path})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: New = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := New(Config{GitleaksConfig: filepath.Join(dir, "missing.toml")}); err == nil {
		t.Errorf("New(missing file) = nil, want an error")
	}
}

func TestConfigValidate(t *testing.T) {
	neg := -1
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"zero", Config{}, true},
		{"full", Config{AllowPaths: []string{`\.lock$`}, AllowRegexes: []string{`^EXAMPLE`}, AllowStopwords: []string{"example"}, Workers: 4}, true},
		{"bad path", Config{AllowPaths: []string{`(`}}, false},
		{"bad regex", Config{AllowRegexes: []string{`[`}}, false},
		{"empty stopword", Config{AllowStopwords: []string{""}}, false},
		{"negative depth", Config{DecodeDepth: &neg}, false},
		{"negative workers", Config{Workers: -2}, false},
		{"negative cache", Config{CacheMaxEntries: -2}, false},
	}
	for _, tt := range tests {
		if err := tt.cfg.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

func FuzzRuleset(f *testing.F) {
	f.Add(customRule)
	f.Add("[extend]\nuseDefault = true\ndisabledRules = [\"x\"]\n" + customRule)
	f.Add("[[rules]]\nid = \"x\"\nregex = '''(unclosed'''\n")
	f.Add(customRule + "[[allowlists]]\ncondition = \"and\"\nregexTarget = \"line\"\nregexes = ['a']\npaths = ['b']\n")
	f.Add("[allowlist]\nstopwords = ['x']\n" + customRule)
	f.Fuzz(func(t *testing.T, text string) {
		fc, err := parseRuleset(text, "fuzz")
		if err != nil {
			return
		}
		fc.Extend = extendSpec{} // never read other files
		cfg, err := compileRuleset(fc, Config{})
		if err != nil {
			return
		}
		if len(cfg.Rules) == 0 {
			t.Errorf("compileRuleset(%q) has no rules and no error", text)
		}
	})
}
