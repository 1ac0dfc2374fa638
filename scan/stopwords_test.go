package scan

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
)

// defaultStopwordLists are the stopword lists of the default ruleset.
func defaultStopwordLists(t testing.TB) [][]string {
	t.Helper()
	fc, err := loadRuleset("")
	if err != nil {
		t.Fatal(err)
	}
	var lists [][]string
	for _, fa := range fc.Allowlists {
		lists = append(lists, fa.StopWords)
	}
	for _, r := range fc.Rules {
		for _, fa := range r.Allowlists {
			lists = append(lists, fa.StopWords)
		}
	}
	var out [][]string
	for _, l := range lists {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		t.Fatal("the default ruleset has no stopwords")
	}
	return out
}

// stopwordPair is one stopword list as gitleaks validates it (with its
// trie) and as compileAllowlist does.
type stopwordPair struct{ gitleaks, ours *config.Allowlist }

func newStopwordPair(t testing.TB, words []string) stopwordPair {
	t.Helper()
	gl := &config.Allowlist{StopWords: words}
	if err := gl.Validate(); err != nil {
		t.Fatal(err)
	}
	ours, err := compileAllowlist(fileAllowlist{StopWords: words})
	if err != nil {
		t.Fatal(err)
	}
	return stopwordPair{gl, ours}
}

func (p stopwordPair) check(t *testing.T, secret string) {
	t.Helper()
	want, _ := p.gitleaks.ContainsStopWord(secret)
	if got, _ := p.ours.ContainsStopWord(secret); got != want {
		t.Errorf("ContainsStopWord(%q) = %v, gitleaks' trie says %v", secret, got, want)
	}
}

func TestStopwordsMatchGitleaks(t *testing.T) {
	lists := append(defaultStopwordLists(t), []string{"ab", "b", "abc", "bcd", "XyZ"}, []string{"x", "", "y"})
	var inputs []string
	for _, smp := range recallSamples(t)[:200] {
		inputs = append(inputs, strings.Fields(smp.text)...)
	}
	for _, words := range lists {
		p := newStopwordPair(t, words)
		for _, w := range words {
			if w == "" {
				continue
			}
			p.check(t, w)
			p.check(t, "x9"+strings.ToUpper(w)+"Q7")
			p.check(t, w[1:])
			p.check(t, w[:len(w)-1]+"#")
		}
		for _, in := range inputs {
			p.check(t, in)
		}
	}
}

func FuzzStopwords(f *testing.F) {
	for _, s := range []string{"", "abcd", "EXAMPLEkey", "3xampl3", "xabcx", "bcd"} {
		f.Add(s)
	}
	var pairs []stopwordPair
	for _, words := range append(defaultStopwordLists(f), []string{"ab", "b", "abc", "bcd"}) {
		pairs = append(pairs, newStopwordPair(f, words))
	}
	f.Fuzz(func(t *testing.T, secret string) {
		for _, p := range pairs {
			p.check(t, secret)
		}
	})
}

// TestNoStopwordTrie checks that the loaded ruleset holds no stopword trie
// (see validateAllowlist) while it keeps every stopword.
func TestNoStopwordTrie(t *testing.T) {
	rules := writeFile(t, t.TempDir(), "rules.toml", "[extend]\nuseDefault = true\n"+customRule+
		"[[rules.allowlists]]\nstopwords = ['gamma']\n")
	s := newScanner(t, Config{GitleaksConfig: rules, AllowStopwords: []string{"Alpha", "beta", "alpha"}})
	lists := s.engine.allowlists
	for _, r := range s.engine.all().Rules {
		lists = append(lists, r.Allowlists...)
	}
	words := 0
	for _, a := range lists {
		if !reflect.ValueOf(a).Elem().FieldByName("stopwordTrie").IsNil() {
			t.Errorf("allowlist %q (stopwords %d) has a stopword trie", a.Description, len(a.StopWords))
		}
		words += len(a.StopWords)
	}
	if want := 3 + len(defaultStopwords(t)); words != want {
		t.Errorf("stopwords loaded = %d, want %d", words, want)
	}
}

// defaultStopwords are the unique lower-cased stopwords of each default list.
func defaultStopwords(t testing.TB) []string {
	t.Helper()
	var all []string
	for _, words := range defaultStopwordLists(t) {
		all = append(all, uniqueLower(words)...)
	}
	return all
}

func TestAllowlistValidation(t *testing.T) {
	tests := []struct {
		name string
		fa   fileAllowlist
		ok   bool
	}{
		{"empty", fileAllowlist{}, false},
		{"stopwords only", fileAllowlist{StopWords: []string{"x"}}, true},
		{"empty stopword", fileAllowlist{StopWords: []string{""}}, true},
		{"regex and stopwords", fileAllowlist{Regexes: []string{"a"}, StopWords: []string{"x"}}, true},
		{"commits only", fileAllowlist{Commits: []string{"abc"}}, true},
	}
	for _, tt := range tests {
		_, err := compileAllowlist(tt.fa)
		if (err == nil) != tt.ok {
			t.Errorf("%s: compileAllowlist = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}
