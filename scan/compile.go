package scan

import (
	"fmt"
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
	glregexp "github.com/zricethezav/gitleaks/v8/regexp"
)

// compileRuleset turns a merged ruleset plus the [scan] allowlists into a
// gitleaks config, compiling every expression with an error instead of
// gitleaks' MustCompile.
func compileRuleset(fc fileConfig, cfg Config) (config.Config, error) {
	out := config.Config{
		Rules:    make(map[string]config.Rule, len(fc.Rules)),
		Keywords: make(map[string]struct{}),
	}
	if len(fc.Rules) == 0 {
		return out, errEmptyRuleset
	}
	targeted := make(map[string][]*config.Allowlist)
	for _, fa := range fc.Allowlists {
		a, err := compileAllowlist(fa)
		if err != nil {
			return out, fmt.Errorf("[[allowlists]]: %w", err)
		}
		if len(fa.TargetRules) == 0 {
			out.Allowlists = append(out.Allowlists, a)
			continue
		}
		for _, id := range fa.TargetRules {
			targeted[id] = append(targeted[id], a)
		}
	}
	for _, fr := range fc.Rules {
		r, err := compileRule(fr)
		if err != nil {
			return out, err
		}
		if _, dup := out.Rules[r.RuleID]; dup {
			return out, fmt.Errorf("rule %q: defined twice", r.RuleID)
		}
		for _, k := range r.Keywords {
			out.Keywords[k] = struct{}{}
		}
		out.Rules[r.RuleID] = r
		out.OrderedRules = append(out.OrderedRules, r.RuleID)
	}
	for id, lists := range targeted {
		r, ok := out.Rules[id]
		if !ok {
			return out, fmt.Errorf("[[allowlists]]: target rule %q does not exist", id)
		}
		r.Allowlists = append(r.Allowlists, lists...)
		out.Rules[id] = r
	}
	for _, r := range out.Rules {
		for _, req := range r.RequiredRules {
			if _, ok := out.Rules[req.RuleID]; !ok {
				return out, fmt.Errorf("rule %q: required rule %q does not exist", r.RuleID, req.RuleID)
			}
		}
	}
	own, err := configAllowlist(cfg)
	if err != nil {
		return out, err
	}
	if own != nil {
		out.Allowlists = append(out.Allowlists, own)
	}
	return out, nil
}

func compileRule(fr fileRule) (config.Rule, error) {
	r := config.Rule{
		RuleID:      fr.ID,
		Description: fr.Description,
		Entropy:     fr.Entropy,
		SecretGroup: fr.SecretGroup,
		Tags:        fr.Tags,
		SkipReport:  fr.SkipReport,
	}
	var err error
	if fr.Regex != "" {
		if r.Regex, err = compileRegex(fr.Regex); err != nil {
			return r, fmt.Errorf("rule %q: regex: %w", fr.ID, err)
		}
	}
	if fr.Path != "" {
		if r.Path, err = compileRegex(fr.Path); err != nil {
			return r, fmt.Errorf("rule %q: path: %w", fr.ID, err)
		}
	}
	for _, k := range fr.Keywords {
		r.Keywords = append(r.Keywords, strings.ToLower(k))
	}
	for _, req := range fr.Required {
		if req.ID == "" {
			return r, fmt.Errorf("rule %q: required rule id is empty", fr.ID)
		}
		r.RequiredRules = append(r.RequiredRules, &config.Required{
			RuleID: req.ID, WithinLines: req.WithinLines, WithinColumns: req.WithinColumns,
		})
	}
	if err := r.Validate(); err != nil {
		return r, fmt.Errorf("rule %q: %w", fr.ID, err)
	}
	// The allowlists are attached after Rule.Validate: it would run
	// gitleaks' Validate on a stopwords-only allowlist, which
	// validateAllowlist leaves unvalidated, and so build its trie.
	for _, fa := range fr.Allowlists {
		a, err := compileAllowlist(fa)
		if err != nil {
			return r, fmt.Errorf("rule %q: allowlist: %w", fr.ID, err)
		}
		r.Allowlists = append(r.Allowlists, a)
	}
	return r, nil
}

func compileAllowlist(fa fileAllowlist) (*config.Allowlist, error) {
	a := &config.Allowlist{
		Description: fa.Description,
		Commits:     fa.Commits,
	}
	switch strings.ToUpper(fa.Condition) {
	case "", "OR", "||":
		a.MatchCondition = config.AllowlistMatchOr
	case "AND", "&&":
		a.MatchCondition = config.AllowlistMatchAnd
	default:
		return nil, fmt.Errorf("unknown condition %q (want and, or)", fa.Condition)
	}
	switch fa.RegexTarget {
	case "", "secret":
	case "match", "line":
		a.RegexTarget = fa.RegexTarget
	default:
		return nil, fmt.Errorf("unknown regexTarget %q (want secret, match, line)", fa.RegexTarget)
	}
	var err error
	if a.Regexes, err = compileAll(fa.Regexes); err != nil {
		return nil, fmt.Errorf("regexes: %w", err)
	}
	if a.Paths, err = compileAll(fa.Paths); err != nil {
		return nil, fmt.Errorf("paths: %w", err)
	}
	if err := validateAllowlist(a, fa.StopWords); err != nil {
		return nil, err
	}
	return a, nil
}

// configAllowlist is the global allowlist from the [scan] section, or nil.
func configAllowlist(cfg Config) (*config.Allowlist, error) {
	fa := fileAllowlist{Paths: cfg.AllowPaths, Regexes: cfg.AllowRegexes, StopWords: cfg.AllowStopwords}
	if len(fa.Paths)+len(fa.Regexes)+len(fa.StopWords) == 0 {
		return nil, nil
	}
	a, err := compileAllowlist(fa)
	if err != nil {
		return nil, fmt.Errorf("scan allowlist: %w", err)
	}
	return a, nil
}

func compileAll(exprs []string) ([]*glregexp.Regexp, error) {
	out := make([]*glregexp.Regexp, 0, len(exprs))
	for _, e := range exprs {
		re, err := compileRegex(e)
		if err != nil {
			return nil, err
		}
		out = append(out, re)
	}
	return out, nil
}
