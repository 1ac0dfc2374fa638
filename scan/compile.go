package scan

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
)

// regexEngine names the regular-expression engine the rules run on; it is
// part of the ruleset fingerprint.
const regexEngine = "go-regexp"

// compiledRuleset is a ruleset ready to scan with: a gitleaks config whose
// rules lack their expressions, which are compiled when a rule first
// applies (most rules never apply to a given team's notes), and those
// expressions, checked and parsed.
type compiledRuleset struct {
	config.Config
	exprs map[string]ruleExpr // by rule id; none for a path-only rule
}

// ruleExpr is a rule's expression as written and parsed.
type ruleExpr struct {
	source string
	parsed *syntax.Regexp
}

// compileRuleset turns a merged ruleset plus the [scan] allowlists into a
// gitleaks config, checking every expression with an error instead of
// gitleaks' MustCompile. The rules' own expressions are parsed, not yet
// compiled.
func compileRuleset(fc fileConfig, cfg Config) (compiledRuleset, error) {
	out := compiledRuleset{
		Config: config.Config{
			Rules:    make(map[string]config.Rule, len(fc.Rules)),
			Keywords: make(map[string]struct{}),
		},
		exprs: make(map[string]ruleExpr, len(fc.Rules)),
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
		r, expr, err := compileRule(fr)
		if err != nil {
			return out, err
		}
		if expr != nil {
			out.exprs[r.RuleID] = ruleExpr{fr.Regex, expr}
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

// compileRule builds a rule without its expression, and returns that
// expression parsed: compileExpr compiles it when the rule first applies.
func compileRule(fr fileRule) (config.Rule, *syntax.Regexp, error) {
	r := config.Rule{
		RuleID:      fr.ID,
		Description: fr.Description,
		Entropy:     fr.Entropy,
		SecretGroup: fr.SecretGroup,
		Tags:        fr.Tags,
		SkipReport:  fr.SkipReport,
	}
	var (
		expr *syntax.Regexp
		err  error
	)
	if fr.Regex != "" {
		if expr, err = syntax.Parse(fr.Regex, syntax.Perl); err != nil {
			return r, nil, fmt.Errorf("rule %q: regex: %w", fr.ID, err)
		}
	}
	if fr.Path != "" {
		if r.Path, err = regexp.Compile(fr.Path); err != nil {
			return r, nil, fmt.Errorf("rule %q: path: %w", fr.ID, err)
		}
	}
	for _, k := range fr.Keywords {
		r.Keywords = append(r.Keywords, strings.ToLower(k))
	}
	for _, req := range fr.Required {
		if req.ID == "" {
			return r, nil, fmt.Errorf("rule %q: required rule id is empty", fr.ID)
		}
		r.RequiredRules = append(r.RequiredRules, &config.Required{
			RuleID: req.ID, WithinLines: req.WithinLines, WithinColumns: req.WithinColumns,
		})
	}
	if err := validateRule(r, fr.Regex, expr); err != nil {
		return r, nil, fmt.Errorf("rule %q: %w", fr.ID, err)
	}
	for _, fa := range fr.Allowlists {
		a, err := compileAllowlist(fa)
		if err != nil {
			return r, nil, fmt.Errorf("rule %q: allowlist: %w", fr.ID, err)
		}
		r.Allowlists = append(r.Allowlists, a)
	}
	return r, expr, nil
}

// validateRule makes gitleaks' Rule.Validate checks on a rule whose
// expression is parsed, not compiled, with its messages.
func validateRule(r config.Rule, source string, expr *syntax.Regexp) error {
	switch {
	case strings.TrimSpace(r.RuleID) == "":
		msg := "rule |id| is missing or empty"
		if r.Description != "" {
			msg += ", description: " + r.Description
		}
		if source != "" {
			msg += ", regex: " + source
		}
		if r.Path != nil {
			msg += ", path: " + r.Path.String()
		}
		return errors.New(msg)
	case expr == nil && r.Path == nil:
		return errors.New(r.RuleID + ": both |regex| and |path| are empty, this rule will have no effect")
	case expr != nil && r.SecretGroup > expr.MaxCap():
		return fmt.Errorf("%s: invalid regex secret group %d, max regex secret group %d", r.RuleID, r.SecretGroup, expr.MaxCap())
	}
	return nil
}

// compileExpr compiles a rule's expression that compileRule parsed: the
// same parser accepted it, and compiling a parsed expression cannot fail.
func compileExpr(expr string) *regexp.Regexp {
	return regexp.MustCompile(expr)
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

func compileAll(exprs []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(exprs))
	for _, e := range exprs {
		re, err := regexp.Compile(e)
		if err != nil {
			return nil, err
		}
		out = append(out, re)
	}
	return out, nil
}
