package scan

import (
	"math"
	"regexp"
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
)

// entropySlack absorbs the rounding in which gitleaks' entropy, summed in
// map order, may differ from this one: a secret counts as too plain only
// when it is clearly at or under the rule's threshold.
const entropySlack = 1e-9

// mayReport says whether the rule can report anything on the undecoded
// text. It finds the rule's matches region by region, exactly those
// gitleaks finds on the whole text, and drops each one only when gitleaks
// certainly would: its secret too plain for the rule's entropy, or
// allowed by an allowlist on the secret or the match. A region whose
// matches touch its edges, where the text around them is cut off, is not
// judged: the rule is kept.
func (fr *filterRule) mayReport(ps *pass, keywords []string, global []*config.Allowlist) bool {
	re := fr.compiled().Regex
	for _, w := range mergeWindows(fr.windows(ps, keywords)) {
		kind, region := kindRegion, ps.text[w.start:w.end]
		if w.start > 0 {
			kind |= regionCutStart
		}
		if w.end < len(ps.text) {
			kind |= regionCutEnd
		}
		if ps.memo.answer(re, kind, region, func() bool { return fr.regionMayReport(re, kind, region, global) }) {
			return true
		}
	}
	return false
}

// regionMayReport says whether the rule, whose expression is re, can
// report anything on region, cut off from the whole text where kind says.
func (fr *filterRule) regionMayReport(re *regexp.Regexp, kind memoKind, region string, global []*config.Allowlist) bool {
	for _, m := range re.FindAllStringIndex(region, -1) {
		if (m[0] == 0 && kind&regionCutStart != 0) || (m[1] == len(region) && kind&regionCutEnd != 0) {
			return true
		}
		if fr.survives(region[m[0]:m[1]], global) {
			return true
		}
	}
	return false
}

// survives says whether a match may become a finding: gitleaks' secret
// extraction, entropy check and allowlists on the secret and the match,
// but none that needs the line or the path, which keep it.
func (fr *filterRule) survives(match string, global []*config.Allowlist) bool {
	r := fr.compiled()
	match = strings.Trim(match, "\n")
	secret := match
	if groups := r.Regex.FindStringSubmatch(secret); len(groups) >= 2 {
		if r.SecretGroup > 0 {
			if len(groups) <= r.SecretGroup {
				return false
			}
			secret = groups[r.SecretGroup]
		} else {
			for _, g := range groups[1:] {
				if g != "" {
					secret = g
					break
				}
			}
		}
	}
	if r.Entropy != 0 && shannonEntropy(secret) <= r.Entropy-entropySlack {
		return false
	}
	return !allowed(global, secret, match) && !allowed(r.Allowlists, secret, match)
}

// allowed says whether an allowlist whose condition is OR certainly
// allows the finding: its regexes on the secret or the match, or its
// stopwords in the secret.
func allowed(lists []*config.Allowlist, secret, match string) bool {
	for _, a := range lists {
		if a.MatchCondition != config.AllowlistMatchOr {
			continue
		}
		if ok, _ := a.ContainsStopWord(secret); ok {
			return true
		}
		switch a.RegexTarget {
		case "":
			if a.RegexAllowed(secret) {
				return true
			}
		case "match":
			if a.RegexAllowed(match) {
				return true
			}
		}
	}
	return false
}

// shannonEntropy is gitleaks' entropy of a secret, in bits per byte
// counted over its runes.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, r := range s {
		counts[r]++
	}
	inv := 1.0 / float64(len(s))
	var e float64
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}
