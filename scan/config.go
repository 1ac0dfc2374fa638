package scan

import (
	"errors"
	"fmt"
	"regexp"
)

// Config is the [scan] section of the teammemd config file.
type Config struct {
	// GitleaksConfig names a .gitleaks.toml. Its rules replace the default
	// gitleaks ruleset unless it sets [extend] useDefault = true, in which case
	// they extend it (gitleaks semantics, including disabledRules). Empty
	// means the full default ruleset.
	GitleaksConfig string `toml:"gitleaks_config"`
	// AllowPaths are regular expressions; a file whose path matches one is
	// not scanned.
	AllowPaths []string `toml:"allow_paths"`
	// AllowRegexes are regular expressions; a finding whose secret matches
	// one is dropped.
	AllowRegexes []string `toml:"allow_regexes"`
	// AllowStopwords drop a finding whose secret contains one of them
	// (case-insensitive).
	AllowStopwords []string `toml:"allow_stopwords"`
	// HonorInlineAllow makes a "gitleaks:allow" comment on a line suppress
	// the findings on that line. Off by default: a note's author must not be
	// able to wave a secret through.
	HonorInlineAllow bool `toml:"honor_inline_allow"`
	// DecodeDepth is how many rounds of base64/hex/percent decoding are
	// scanned for encoded secrets (gitleaks' --max-decode-depth). Nil means 5,
	// the gitleaks default; 0 turns decoding off.
	DecodeDepth *int `toml:"decode_depth"`
	// CacheMaxEntries bounds the verdict cache; 0 means 100000.
	CacheMaxEntries int `toml:"cache_max_entries"`
	// Workers is how many files are scanned at once; 0 means GOMAXPROCS.
	Workers int `toml:"workers"`
}

const (
	defaultDecodeDepth     = 5
	defaultCacheMaxEntries = 100_000
	maxDecodeDepth         = 10
)

// Validate checks the section without reading any file.
func (c Config) Validate() error {
	var errs []error
	for _, p := range c.AllowPaths {
		if _, err := regexp.Compile(p); err != nil {
			errs = append(errs, fmt.Errorf("scan.allow_paths: %w", err))
		}
	}
	for _, p := range c.AllowRegexes {
		if _, err := regexp.Compile(p); err != nil {
			errs = append(errs, fmt.Errorf("scan.allow_regexes: %w", err))
		}
	}
	for _, w := range c.AllowStopwords {
		if w == "" {
			errs = append(errs, errors.New("scan.allow_stopwords: empty stopword"))
		}
	}
	if c.DecodeDepth != nil && (*c.DecodeDepth < 0 || *c.DecodeDepth > maxDecodeDepth) {
		errs = append(errs, fmt.Errorf("scan.decode_depth: %d out of range 0..%d", *c.DecodeDepth, maxDecodeDepth))
	}
	if c.CacheMaxEntries < 0 {
		errs = append(errs, fmt.Errorf("scan.cache_max_entries: %d is negative", c.CacheMaxEntries))
	}
	if c.Workers < 0 {
		errs = append(errs, fmt.Errorf("scan.workers: %d is negative", c.Workers))
	}
	return errors.Join(errs...)
}

func (c Config) decodeDepth() int {
	if c.DecodeDepth == nil {
		return defaultDecodeDepth
	}
	return *c.DecodeDepth
}

func (c Config) cacheMaxEntries() int {
	if c.CacheMaxEntries == 0 {
		return defaultCacheMaxEntries
	}
	return c.CacheMaxEntries
}
