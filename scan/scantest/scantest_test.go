package scantest

import (
	"regexp"
	"testing"
)

// Every allowlisted path of the default config yields a key it matches,
// and the list holds the paths the issue names.
func TestDefaultAllowedPaths(t *testing.T) {
	paths := DefaultAllowedPaths(t)
	byKey := map[string]bool{}
	for _, p := range paths {
		re := regexp.MustCompile(p.Regex)
		if !re.MatchString(p.Key) {
			t.Errorf("DefaultAllowedPaths: %q does not match its key %q", p.Regex, p.Key)
		}
		if p.SyncKey != "" && !re.MatchString(p.SyncKey) {
			t.Errorf("DefaultAllowedPaths: %q does not match its sync key %q", p.Regex, p.SyncKey)
		}
		byKey[p.Key] = true
	}
	for _, want := range []string{"node_modules", "vendor/modules.txt", "gitleaks.toml", "go.mod"} {
		found := false
		for k := range byKey {
			if regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(k) {
				found = true
			}
		}
		if !found {
			t.Errorf("DefaultAllowedPaths has no key under %s", want)
		}
	}
}

func TestAWSKey(t *testing.T) {
	a, b := AWSKey(), AWSKey()
	if a == b || !regexp.MustCompile(`^AKIA[A-Z2-7]{16}$`).MatchString(a) {
		t.Errorf("AWSKey() = %q, %q, want two different AKIA keys", a, b)
	}
}

func TestLeaks(t *testing.T) {
	tests := []struct {
		text, secret string
		want         int
	}{
		{"nothing here", "AKIAABCDEFGH", 0},
		{"a AKIAABCD b", "AKIAABCDEFGH", 1},
		{"AKIAABCDEFGH and AKIAABCDEFGH", "AKIAABCDEFGH", 2},
	}
	for _, tt := range tests {
		if got := Leaks(tt.text, tt.secret, 8); len(got) != tt.want {
			t.Errorf("Leaks(%q, %q, 8) = %v, want %d", tt.text, tt.secret, got, tt.want)
		}
	}
}

func TestRuleSample(t *testing.T) {
	if got := RuleSample(t, "github-pat"); !regexp.MustCompile(`ghp_[0-9a-zA-Z]{36}`).MatchString(got) {
		t.Errorf("RuleSample(github-pat) = %q, want a GitHub token", got)
	}
}
