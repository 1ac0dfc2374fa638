package scan

import (
	"fmt"

	"github.com/coregx/ahocorasick"
)

// keywordSearch finds the rules' keywords in a lower-cased text, in one
// pass of an Aho-Corasick automaton compiled to a flat table over byte
// classes: one row of a few dozen entries a state, where a trie of 256
// transitions a state spread its states over megabytes. A scan after a
// pause, with none of it in the processor's caches, pays for each row it
// reads.
type keywordSearch struct {
	ac      *ahocorasick.Automaton // nil when no keyword can be found
	numbers []int                  // keyword number of each of ac's patterns
}

// newKeywordSearch compiles the keywords, numbered by their place. An
// empty keyword is never found, as in gitleaks' own keyword pass.
func newKeywordSearch(keywords []string) (keywordSearch, error) {
	var ks keywordSearch
	var patterns []string
	for n, k := range keywords {
		if k == "" {
			continue
		}
		patterns = append(patterns, k)
		ks.numbers = append(ks.numbers, n)
	}
	if len(patterns) == 0 {
		return ks, nil
	}
	ac, err := ahocorasick.NewBuilder().AddStrings(patterns).Build()
	if err != nil {
		return keywordSearch{}, fmt.Errorf("compile the rules' %d keywords: %w", len(patterns), err)
	}
	ks.ac = ac
	return ks, nil
}

// occurrences are the start offsets of every occurrence of every keyword
// in lower, overlapping ones too, by keyword number; nil when none is
// there.
func (ks keywordSearch) occurrences(lower []byte) map[int][]int {
	if ks.ac == nil {
		return nil
	}
	var hits map[int][]int
	for _, m := range ks.ac.FindAllOverlapping(lower) {
		if hits == nil {
			hits = map[int][]int{}
		}
		n := ks.numbers[m.PatternID]
		hits[n] = append(hits[n], m.Start)
	}
	return hits
}
