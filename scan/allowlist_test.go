package scan

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"

	"github.com/teammemd/teammemd/scan/scantest"
)

func hasRule(fs []Finding, id string) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.RuleID == id })
}

// Team memory holds no vendored code: a secret under any path that
// gitleaks' default configuration allowlists, globally or for one rule, is
// found, whether the path is a wire key or a file's absolute path.
func TestNoDefaultPathIsSkipped(t *testing.T) {
	s := newScanner(t, Config{})
	ctx := context.Background()
	for _, p := range scantest.DefaultAllowedPaths(t) {
		rule, text := scantest.SecretFor(t, p)
		for _, path := range []string{p.Key, "/home/u/repo/.claude/team/" + p.Key} {
			fs, err := s.File(ctx, path, []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			if !hasRule(fs, rule) {
				t.Errorf("File(%q, a %s secret) = %v, want a %s finding (allowlisted by %q)", path, rule, RuleIDs(fs), rule, p.Regex)
			}
		}
	}
	// generic-api-key's AND allowlist: a BitBake file's SRC line.
	fs, err := s.File(ctx, "recipes/app.bb", []byte(`SRC_TOKEN = "Zf3D0LXCM3EIMbgJpUNnkRtOfOuHznB"`+"\n"))
	if err != nil || !hasRule(fs, "generic-api-key") {
		t.Errorf("File(recipes/app.bb, a SRC token) = %v, %v, want a generic-api-key finding", RuleIDs(fs), err)
	}
}

// Dropping the default path allowlists keeps every other part of the
// defaults: the global regexes and stopwords, and each rule's allowlists
// that do not name paths.
func TestDefaultAllowlistsKeepNonPathChecks(t *testing.T) {
	raw, err := parseRuleset(config.DefaultConfig, "default")
	if err != nil {
		t.Fatal(err)
	}
	s := newScanner(t, Config{})
	gl := s.engine.all()
	var regexes, stopwords int
	for _, a := range gl.Allowlists {
		if len(a.Paths) > 0 {
			t.Errorf("global allowlist %q keeps %d paths, want none", a.Description, len(a.Paths))
		}
		regexes += len(a.Regexes)
		stopwords += len(a.StopWords)
	}
	if regexes == 0 || stopwords == 0 {
		t.Errorf("global allowlists hold %d regexes and %d stopwords, want the defaults' regexes and stopwords kept", regexes, stopwords)
	}
	for _, r := range raw.Rules {
		want := 0
		for _, a := range r.Allowlists {
			if len(a.Paths) == 0 {
				want++
			}
		}
		got := gl.Rules[r.ID].Allowlists
		if len(got) != want {
			t.Errorf("rule %s has %d allowlists, want the %d that name no paths", r.ID, len(got), want)
		}
		for _, a := range got {
			if len(a.Paths) > 0 {
				t.Errorf("rule %s keeps an allowlist with paths %v", r.ID, a.Paths)
			}
		}
	}
}

// legacyFingerprint is the ruleset fingerprint of the release that still
// applied gitleaks' default path allowlists: engine teammemd-scan/1 over
// the default rules as gitleaks writes them, with an empty [scan] section.
func legacyFingerprint(t *testing.T) string {
	t.Helper()
	fc, err := parseRuleset(config.DefaultConfig, "default")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	var none []string
	for _, p := range []any{"teammemd-scan/1", regexEngine, fc.Rules, fc.Allowlists, none, none, none, false, 5} {
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:])
}

// A verdict cached by a release that skipped allowlisted paths is not
// reused: the fingerprint changed with the rules, so the file is scanned
// again.
func TestCacheOfPathAllowlistingReleaseIsDiscarded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.json")
	old := legacyFingerprint(t)
	note := []byte(scantest.AWSNote(scantest.AWSKey()))
	for _, name := range []string{"node_modules/creds.md", "creds.md"} {
		cached := &verdictCache{fingerprint: old}
		k := cached.key(name, note)
		data, err := json.Marshal(cacheFile{Version: cacheVersion, Fingerprint: old, Entries: []cacheFileItem{{Key: hex.EncodeToString(k[:]), Seq: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s := newScanner(t, Config{}, WithCacheFile(path))
		fs, err := s.File(context.Background(), name, note)
		if err != nil || !hasRule(fs, scantest.AWSRule) {
			t.Errorf("File(%s) with a clean verdict cached by the old release = %v, %v, want an %s finding", name, RuleIDs(fs), err, scantest.AWSRule)
		}
	}
}
