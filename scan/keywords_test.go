package scan

import (
	"testing"
)

// TestKeywordEdgesAsGitleaks holds rulesets whose keywords the automaton
// cannot take as they are to gitleaks' detector: an empty keyword (never
// found by gitleaks' keyword pass), beside a real one and alone, and a
// ruleset with no keyword the automaton could hold.
func TestKeywordEdgesAsGitleaks(t *testing.T) {
	rulesets := map[string]string{
		"empty beside real": `
[[rules]]
id = "empty-and-real"
regex = '''tok_[a-z]{8}'''
keywords = ["", "tok_"]

[[rules]]
id = "real"
regex = '''acme_[a-z0-9]{16}'''
keywords = ["acme_"]
`,
		"only empty": `
[[rules]]
id = "only-empty"
regex = '''secretval[0-9]{6}'''
keywords = [""]

[[rules]]
id = "none"
regex = '''plainval[0-9]{6}'''
`,
	}
	texts := []string{
		"",
		"token tok_abcdefgh here\n",
		"acme_q8w7e6r5t4y3u2i1 and tok_zyxwvuts\n",
		"secretval123456 plainval654321\n",
		"nothing to see\n",
	}
	dir := t.TempDir()
	for name, toml := range rulesets {
		s := newScanner(t, Config{GitleaksConfig: writeFile(t, dir, "r.toml", toml)})
		plain := plainDetector(s)
		for _, text := range texts {
			sameFindings(t, s, plain, name+": "+text, text, "n.md")
			sameOccurrences(t, s.engine.filter, text)
		}
	}
}
