package scan

import (
	"fmt"
	"testing"

	"github.com/teammemd/teammemd/scan/internal/corpus"
)

// TestReachableHoldsEveryRuleThatApplies checks the rule index against the
// rules themselves: on gitleaks' rule samples and on both corpora, every
// rule that applies to a text is among those the index lists for it, and
// the index lists each at most once, in rule order.
func TestReachableHoldsEveryRuleThatApplies(t *testing.T) {
	s := newScanner(t, Config{})
	p := s.engine.filter
	type text struct{ name, text, path string }
	texts := []text{{"empty", "", ""}, {"plain", "The build uses make; run go test.\n", "n.md"}, {"unusual", "\u212aey = x", "n.md"}}
	for _, smp := range recallSamples(t) {
		texts = append(texts, text{"sample of " + smp.ruleID, smp.text, smp.path})
	}
	for i := range 40 {
		texts = append(texts, text{fmt.Sprintf("corpus.Note(%d)", i), corpus.Note(i, 4096), "note.md"},
			text{fmt.Sprintf("corpus.CleanNote(%d)", i), corpus.CleanNote(i, 4096), "note.md"})
	}
	for _, tx := range texts {
		ps := p.newPass(tx.text)
		listed := map[int]bool{}
		last := -1
		for _, i := range p.index.reachable(ps) {
			if i <= last {
				t.Fatalf("%s: reachable rules out of order or repeated at %d after %d", tx.name, i, last)
			}
			last = i
			listed[i] = true
		}
		for i, fr := range p.rules {
			if fr.applies(ps, tx.path) && !listed[i] {
				t.Errorf("%s: rule %s applies but the index leaves it out", tx.name, fr.base.RuleID)
			}
		}
	}
}

// TestPlainNoteReachesFewRules keeps the point of the index: a note
// without a keyword reaches only the rules that have none.
func TestPlainNoteReachesFewRules(t *testing.T) {
	p := newScanner(t, Config{}).engine.filter
	got := len(p.index.reachable(p.newPass("The build uses make; run go test.\n")))
	if got != len(p.index.unkeyed) || got*4 > len(p.rules) {
		t.Errorf("a plain note reaches %d of %d rules, want the %d without keywords", got, len(p.rules), len(p.index.unkeyed))
	}
}
