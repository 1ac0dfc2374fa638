// Package scantest builds secret-scanning test vectors from the ruleset
// itself, for the tests of the scanner, the server, the sync engine and the
// commands: a key under every path that gitleaks' default configuration
// allowlists (read from the gitleaks module at test time, so a new gitleaks
// version's list is covered without editing any test), and fresh canary
// secrets that the default rules flag.
package scantest

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/zricethezav/gitleaks/v8/config"

	"github.com/teammemd/teammemd/server/api"
)

// AllowedPath is one path regex of an allowlist in gitleaks' default
// configuration, with keys it matches.
type AllowedPath struct {
	// Rule is the id of the rule whose allowlist holds the path, or "" for
	// the global allowlist.
	Rule string
	// Regex is the path expression as gitleaks' config writes it.
	Regex string
	// Key is a valid wire key the expression matches, not hidden when one
	// exists.
	Key string
	// SyncKey is a key the expression matches that the daemon syncs (a
	// .md or .txt file, not hidden), or "" when the expression only
	// matches names a team directory never syncs (such as *.png).
	SyncKey string
}

// defaultConfig is the part of gitleaks' default configuration that names
// paths.
type defaultConfig struct {
	Allowlist  allowlist   `toml:"allowlist"`
	Allowlists []allowlist `toml:"allowlists"`
	Rules      []struct {
		ID         string      `toml:"id"`
		Allowlist  allowlist   `toml:"allowlist"`
		Allowlists []allowlist `toml:"allowlists"`
	} `toml:"rules"`
}

type allowlist struct {
	Paths []string `toml:"paths"`
}

// DefaultAllowedPaths returns every path expression of every allowlist in
// gitleaks' default configuration, global and per rule, each with a key it
// matches. It fails the test when the configuration names no paths or an
// expression matches no valid key.
func DefaultAllowedPaths(t testing.TB) []AllowedPath {
	t.Helper()
	var dc defaultConfig
	if _, err := toml.Decode(config.DefaultConfig, &dc); err != nil {
		t.Fatalf("scantest: decode gitleaks' default config: %v", err)
	}
	var out []AllowedPath
	add := func(rule string, lists ...allowlist) {
		for _, l := range lists {
			for _, expr := range l.Paths {
				out = append(out, allowedPath(t, rule, expr))
			}
		}
	}
	add("", append(dc.Allowlists, dc.Allowlist)...)
	for _, r := range dc.Rules {
		add(r.ID, append(r.Allowlists, r.Allowlist)...)
	}
	if len(out) == 0 {
		t.Fatal("scantest: gitleaks' default config names no allowlisted paths")
	}
	return out
}

func allowedPath(t testing.TB, rule, expr string) AllowedPath {
	t.Helper()
	re, err := regexp.Compile(expr)
	if err != nil {
		t.Fatalf("scantest: path %q: %v", expr, err)
	}
	base, err := Sample(expr)
	if err != nil {
		t.Fatalf("scantest: path %q: %v", expr, err)
	}
	p := AllowedPath{Rule: rule, Regex: expr}
	candidates := []string{base, "notes/" + base, "x" + base, "notes/x" + base}
	for _, c := range candidates {
		if p.Key == "" && matchesKey(re, c) && !api.IsHiddenKey(c) {
			p.Key = c
		}
		for _, s := range []string{c, c + "/x.md", c + ".md"} {
			if p.SyncKey == "" && matchesKey(re, s) && api.IsSyncableKey(s) {
				p.SyncKey = s
			}
		}
	}
	for _, c := range candidates {
		if p.Key == "" && matchesKey(re, c) {
			p.Key = c
		}
	}
	if p.Key == "" {
		t.Fatalf("scantest: no valid key matches the allowlisted path %q (sampled %q)", expr, base)
	}
	return p
}

func matchesKey(re *regexp.Regexp, key string) bool {
	return re.MatchString(key) && api.ValidateKey(key, api.Limits{}) == nil
}

// Sample returns a short string the regular expression expr matches, or
// an error for an expression it cannot sample. The caller checks the
// result with the expression: assertions such as \b are not honoured.
func Sample(expr string) (string, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := sample(&b, re.Simplify()); err != nil {
		return "", fmt.Errorf("sample %q: %w", expr, err)
	}
	return b.String(), nil
}

func sample(b *strings.Builder, re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(classRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('x')
	case syntax.OpCapture, syntax.OpPlus:
		return sample(b, re.Sub[0])
	case syntax.OpRepeat:
		for range re.Min {
			if err := sample(b, re.Sub[0]); err != nil {
				return err
			}
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if err := sample(b, sub); err != nil {
				return err
			}
		}
	case syntax.OpAlternate:
		return sample(b, re.Sub[0])
	case syntax.OpStar, syntax.OpQuest, syntax.OpEmptyMatch,
		syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
	default:
		return fmt.Errorf("operator %v", re.Op)
	}
	return nil
}

// classRune picks a rune of a character class (pairs of ranges), a plain
// letter or digit when the class holds one.
func classRune(ranges []rune) rune {
	for _, r := range "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_-." {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return r
			}
		}
	}
	return ranges[0]
}

// awsAlphabet is what follows AKIA in an AWS access key id.
const awsAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// AWSKey returns a fresh AWS access key id, AKIA and 16 random characters,
// which gitleaks' aws-access-token rule flags. Each call returns a new one,
// so a test can grep every output for it.
func AWSKey() string {
	for {
		var b strings.Builder
		b.WriteString("AKIA")
		for range 16 {
			b.WriteByte(awsAlphabet[rand.IntN(len(awsAlphabet))])
		}
		k := b.String()
		if entropy(k) >= 3.5 && !strings.HasSuffix(k, "EXAMPLE") {
			return k
		}
	}
}

// AWSRule is the id of the rule AWSKey's keys match.
const AWSRule = "aws-access-token"

// AWSNote is a team memory note that holds key.
func AWSNote(key string) string {
	return "# Deploy\n\naws_access_key_id = " + key + "\n"
}

// RuleSample returns the recall sample of rule id from the scanner's
// testdata (scan/testdata/recall.tsv): a note holding one secret that the
// rule flags.
func RuleSample(t testing.TB, id string) string {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("scantest: cannot locate the recall samples")
	}
	f, err := os.Open(filepath.Join(filepath.Dir(self), "..", "testdata", "recall.tsv"))
	if err != nil {
		t.Fatalf("scantest: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 || parts[0] != id {
			continue
		}
		text, err := base64.StdEncoding.DecodeString(parts[2])
		if err != nil {
			t.Fatalf("scantest: recall sample of %s: %v", id, err)
		}
		return string(text)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("scantest: %v", err)
	}
	t.Fatalf("scantest: no recall sample for rule %s", id)
	return ""
}

// SecretFor returns a note holding a secret that p's rule flags: an AWS
// access key id for the global allowlist, the rule's recall sample for a
// rule's own allowlist. It returns the rule id too.
func SecretFor(t testing.TB, p AllowedPath) (rule, note string) {
	t.Helper()
	if p.Rule == "" {
		return AWSRule, AWSNote(AWSKey())
	}
	return p.Rule, RuleSample(t, p.Rule)
}

// entropy is the Shannon entropy of s in bits per byte, as gitleaks
// computes it.
func entropy(s string) float64 {
	counts := map[rune]int{}
	for _, r := range s {
		counts[r]++
	}
	var h float64
	for _, n := range counts {
		p := float64(n) / float64(len(s))
		h -= p * math.Log2(p)
	}
	return h
}

// Leaks returns the places in text where secret, or its first n bytes or
// more, appears: a report of what leaked, empty when nothing did.
func Leaks(text, secret string, n int) []string {
	var out []string
	probe := secret[:min(n, len(secret))]
	for i := 0; ; {
		j := strings.Index(text[i:], probe)
		if j < 0 {
			return out
		}
		at := i + j
		out = append(out, fmt.Sprintf("%q", text[max(0, at-60):min(len(text), at+len(secret)+20)]))
		i = at + len(probe)
	}
}
