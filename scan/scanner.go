// Package scan finds secrets in team memory files, and in their names,
// before they leave the machine or reach the server. It runs the gitleaks
// ruleset (the full default set without gitleaks' path allowlists, which
// are made for source trees, optionally extended or replaced by a
// .gitleaks.toml), reports findings whose previews never contain the
// secret, and caches verdicts by content hash and ruleset fingerprint in a
// file that survives restarts.
package scan

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// Finding is one secret found in a file. It never holds the secret itself.
type Finding struct {
	RuleID      string `json:"ruleId"`
	Description string `json:"description"`
	File        string `json:"file,omitempty"`
	Line        int    `json:"line"`     // 1-based; 0 for a rule that matches the file name only
	Column      int    `json:"column"`   // 1-based, in bytes
	Redacted    string `json:"redacted"` // a fully redacted preview of the line: the secret never appears
}

// Scanner scans content with one loaded ruleset. It is safe for concurrent
// use; build it once per process with New.
type Scanner struct {
	engine      *engine
	fingerprint string
	workers     int
	cache       *verdictCache
	log         *slog.Logger
}

type options struct {
	log         *slog.Logger
	cachePath   string
	ignorePaths bool
}

// Option adjusts New.
type Option func(*options)

// WithLogger sets the logger; the default discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithCacheFile persists the verdict cache at path: it is loaded by New and
// written by Flush. Without it the cache lives in memory only.
func WithCacheFile(path string) Option { return func(o *options) { o.cachePath = path } }

// IgnorePathAllowlists makes no path allowlist decide a verdict: the
// server's choice, since a wire key is whatever the client chose. [scan]
// allow_paths and the path checks of the .gitleaks.toml are dropped, and
// New warns once, naming them.
func IgnorePathAllowlists() Option { return func(o *options) { o.ignorePaths = true } }

var silenceGitleaks sync.Once

// New loads the ruleset named by cfg (once; the result is shared by every
// scan) and the persisted cache, if any. A broken ruleset is an error.
func New(cfg Config, opts ...Option) (*Scanner, error) {
	o := options{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, opt := range opts {
		opt(&o)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// gitleaks logs matched secrets at trace level on its own global logger;
	// it must never write anything.
	silenceGitleaks.Do(func() { logging.Logger = zerolog.Nop() })
	fc, err := loadRuleset(cfg.GitleaksConfig)
	if err != nil {
		return nil, fmt.Errorf("load rules: %w", err)
	}
	if o.ignorePaths {
		fc, cfg = ignorePathAllowlists(fc, cfg, o.log)
	}
	gl, err := compileRuleset(fc, cfg)
	if err != nil {
		return nil, fmt.Errorf("load rules: %w", err)
	}
	eng, err := newEngine(gl, cfg.decodeDepth(), cfg.HonorInlineAllow)
	if err != nil {
		return nil, fmt.Errorf("load rules: %w", err)
	}
	fp, err := fingerprint(fc, cfg, o.ignorePaths)
	if err != nil {
		return nil, err
	}
	s := &Scanner{
		engine:      eng,
		fingerprint: fp,
		workers:     cfg.Workers,
		log:         o.log,
	}
	s.cache = loadCache(o.cachePath, fp, cfg.cacheMaxEntries(), o.log)
	o.log.Debug("scan rules loaded", "rules", len(gl.Rules), "fingerprint", fp[:12], "engine", regexEngine)
	return s, nil
}

// Fingerprint identifies the loaded ruleset and the settings that change a
// verdict; cached verdicts are valid only under the same fingerprint.
func (s *Scanner) Fingerprint() string { return s.fingerprint }

// File scans one file's content. path is reported in the findings and
// matched against path allowlists and path rules; the path's own text is
// not scanned (Key does that). The verdict is cached.
func (s *Scanner) File(ctx context.Context, path string, data []byte) ([]Finding, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := s.cache.key(path, data)
	if cached, ok := s.cache.get(key); ok {
		return withFile(cached, path), nil
	}
	return s.detectAndKeep(ctx, key, path, string(data))
}

// fileText is File of content held in a string, scanned without a copy.
func (s *Scanner) fileText(ctx context.Context, path, text string) ([]Finding, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := s.cache.keyText(path, text)
	if cached, ok := s.cache.get(key); ok {
		return withFile(cached, path), nil
	}
	return s.detectAndKeep(ctx, key, path, text)
}

// detectAndKeep scans text at path and caches the verdict under key.
func (s *Scanner) detectAndKeep(ctx context.Context, key cacheKey, path, text string) ([]Finding, error) {
	found, err := s.detect(ctx, path, text)
	if err != nil {
		return nil, err
	}
	s.cache.put(key, found)
	return withFile(found, path), nil
}

// Flush writes the verdict cache to its file if it changed since the last
// write. Without WithCacheFile it does nothing.
func (s *Scanner) Flush() error { return s.cache.flush() }

func withFile(fs []Finding, path string) []Finding {
	if len(fs) == 0 {
		return nil
	}
	out := slices.Clone(fs)
	for i := range out {
		out[i].File = path
	}
	return out
}
