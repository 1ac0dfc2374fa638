package scan

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/BurntSushi/toml"
	"github.com/zricethezav/gitleaks/v8/config"
)

// fileConfig is the shape of a .gitleaks.toml, decoded without gitleaks'
// global state so that several rulesets can be loaded in one process and a
// broken file is an error rather than a panic. Unknown keys are ignored, as
// gitleaks does.
type fileConfig struct {
	Title      string          `toml:"title" json:"-"`
	MinVersion string          `toml:"minVersion" json:"-"`
	Extend     extendSpec      `toml:"extend" json:"-"`
	Rules      []fileRule      `toml:"rules" json:"rules"`
	AllowList  *fileAllowlist  `toml:"allowlist" json:"-"`
	Allowlists []fileAllowlist `toml:"allowlists" json:"allowlists"`
}

type extendSpec struct {
	Path          string   `toml:"path"`
	URL           string   `toml:"url"`
	UseDefault    bool     `toml:"useDefault"`
	DisabledRules []string `toml:"disabledRules"`
}

type fileRule struct {
	ID          string          `toml:"id" json:"id"`
	Description string          `toml:"description" json:"description"`
	Path        string          `toml:"path" json:"path,omitempty"`
	Regex       string          `toml:"regex" json:"regex,omitempty"`
	SecretGroup int             `toml:"secretGroup" json:"secretGroup,omitempty"`
	Entropy     float64         `toml:"entropy" json:"entropy,omitempty"`
	Keywords    []string        `toml:"keywords" json:"keywords,omitempty"`
	Tags        []string        `toml:"tags" json:"-"`
	SkipReport  bool            `toml:"skipReport" json:"skipReport,omitempty"`
	AllowList   *fileAllowlist  `toml:"allowlist" json:"-"`
	Allowlists  []fileAllowlist `toml:"allowlists" json:"allowlists,omitempty"`
	Required    []fileRequired  `toml:"required" json:"required,omitempty"`
}

type fileAllowlist struct {
	Description string   `toml:"description" json:"-"`
	Condition   string   `toml:"condition" json:"condition,omitempty"`
	Commits     []string `toml:"commits" json:"-"`
	Paths       []string `toml:"paths" json:"paths,omitempty"`
	RegexTarget string   `toml:"regexTarget" json:"regexTarget,omitempty"`
	Regexes     []string `toml:"regexes" json:"regexes,omitempty"`
	StopWords   []string `toml:"stopwords" json:"stopwords,omitempty"`
	TargetRules []string `toml:"targetRules" json:"targetRules,omitempty"`
}

type fileRequired struct {
	ID            string `toml:"id" json:"id"`
	WithinLines   *int   `toml:"withinLines" json:"withinLines,omitempty"`
	WithinColumns *int   `toml:"withinColumns" json:"withinColumns,omitempty"`
}

// maxExtendDepth matches gitleaks: a config may extend one that extends one.
const maxExtendDepth = 2

// loadRuleset returns the merged, uncompiled ruleset: the gitleaks default
// when path is empty, else the file at path with its [extend] resolved.
func loadRuleset(path string) (fileConfig, error) {
	if path == "" {
		return defaultRuleset()
	}
	return loadRulesetFile(path, 0)
}

// defaultRuleset is gitleaks' default configuration without its path
// allowlists: they are made for source trees (node_modules/, vendor/,
// go.sum, *.png, ...) and would let a team memory key skip the scan. Team
// memory holds no vendored code, so every key is scanned.
func defaultRuleset() (fileConfig, error) {
	fc, err := parseRuleset(config.DefaultConfig, "default gitleaks config")
	if err != nil {
		return fileConfig{}, err
	}
	fc, _ = withoutPathAllowlists(fc)
	return fc, nil
}

func loadRulesetFile(path string, depth int) (fileConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return fileConfig{}, fmt.Errorf("read gitleaks config: %w", err)
	}
	fc, err := parseRuleset(string(data), path)
	if err != nil {
		return fileConfig{}, err
	}
	ext := fc.Extend
	if ext.URL != "" {
		return fileConfig{}, fmt.Errorf("gitleaks config %s: extend.url is not supported", path)
	}
	if ext.UseDefault && ext.Path != "" {
		return fileConfig{}, fmt.Errorf("gitleaks config %s: extend.path and extend.useDefault are both set", path)
	}
	if depth >= maxExtendDepth || (!ext.UseDefault && ext.Path == "") {
		return fc, nil
	}
	var base fileConfig
	if ext.UseDefault {
		base, err = defaultRuleset()
	} else {
		basePath := ext.Path
		if !filepath.IsAbs(basePath) {
			basePath = filepath.Join(filepath.Dir(path), basePath)
		}
		base, err = loadRulesetFile(basePath, depth+1)
	}
	if err != nil {
		return fileConfig{}, fmt.Errorf("gitleaks config %s: extend: %w", path, err)
	}
	return extendRuleset(fc, base), nil
}

// parseRuleset decodes one gitleaks TOML document and folds the deprecated
// single [allowlist] tables into the lists, as gitleaks does.
func parseRuleset(text, name string) (fileConfig, error) {
	var fc fileConfig
	if _, err := toml.Decode(text, &fc); err != nil {
		return fileConfig{}, fmt.Errorf("gitleaks config %s: %w", name, err)
	}
	if fc.AllowList != nil {
		if len(fc.Allowlists) > 0 {
			return fileConfig{}, fmt.Errorf("gitleaks config %s: [allowlist] cannot be used alongside [[allowlists]]", name)
		}
		fc.Allowlists = []fileAllowlist{*fc.AllowList}
		fc.AllowList = nil
	}
	for i := range fc.Rules {
		r := &fc.Rules[i]
		if r.AllowList == nil {
			continue
		}
		if len(r.Allowlists) > 0 {
			return fileConfig{}, fmt.Errorf("gitleaks config %s: rule %q: [rules.allowlist] cannot be used alongside [[rules.allowlists]]", name, r.ID)
		}
		r.Allowlists = []fileAllowlist{*r.AllowList}
		r.AllowList = nil
	}
	return fc, nil
}

// extendRuleset merges base into fc the way gitleaks' [extend] does: base
// rules not disabled are added; a rule present in both keeps fc's non-empty
// fields and gains base's keywords, tags and allowlists; global allowlists
// are appended.
func extendRuleset(fc, base fileConfig) fileConfig {
	disabled := make(map[string]bool, len(fc.Extend.DisabledRules))
	for _, id := range fc.Extend.DisabledRules {
		disabled[id] = true
	}
	index := make(map[string]int, len(fc.Rules))
	for i, r := range fc.Rules {
		index[r.ID] = i
	}
	for _, b := range base.Rules {
		if disabled[b.ID] {
			continue
		}
		i, ok := index[b.ID]
		if !ok {
			index[b.ID] = len(fc.Rules)
			fc.Rules = append(fc.Rules, b)
			continue
		}
		fc.Rules[i] = mergeRule(fc.Rules[i], b)
	}
	fc.Allowlists = append(fc.Allowlists, base.Allowlists...)
	slices.SortStableFunc(fc.Rules, func(a, b fileRule) int { return cmp.Compare(a.ID, b.ID) })
	return fc
}

func mergeRule(cur, base fileRule) fileRule {
	out := base
	if cur.Description != "" {
		out.Description = cur.Description
	}
	if cur.Entropy != 0 {
		out.Entropy = cur.Entropy
	}
	if cur.SecretGroup != 0 {
		out.SecretGroup = cur.SecretGroup
	}
	if cur.Regex != "" {
		out.Regex = cur.Regex
	}
	if cur.Path != "" {
		out.Path = cur.Path
	}
	out.Tags = append(slices.Clone(base.Tags), cur.Tags...)
	out.Keywords = append(slices.Clone(base.Keywords), cur.Keywords...)
	out.Allowlists = append(slices.Clone(base.Allowlists), cur.Allowlists...)
	if len(cur.Required) > 0 {
		out.Required = cur.Required
	}
	out.SkipReport = out.SkipReport || cur.SkipReport
	return out
}

var errEmptyRuleset = errors.New("the ruleset has no rules")
