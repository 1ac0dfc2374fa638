package scan

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zricethezav/gitleaks/v8/report"
)

// engineVersion changes whenever this package changes what a verdict holds,
// so that old cached verdicts are dropped.
// Version 2 scans key names and no longer applies gitleaks' default path
// allowlists.
const engineVersion = "teammemd-scan/2"

// detect runs the rules over one file and converts the results.
func (s *Scanner) detect(ctx context.Context, path, raw string) ([]Finding, error) {
	gl := s.engine.detect(ctx, raw, path)
	if err := ctx.Err(); err != nil {
		return nil, err // a cancelled scan is incomplete: never a verdict
	}
	return convert(raw, gl), nil
}

// convert turns gitleaks findings into Findings with redacted previews,
// sorted by position.
func convert(raw string, gl []report.Finding) []Finding {
	if len(gl) == 0 {
		return nil
	}
	secrets := make([]string, 0, 2*len(gl))
	for _, f := range gl {
		secrets = append(secrets, f.Secret, f.Match)
	}
	out := make([]Finding, 0, len(gl))
	for _, f := range gl {
		out = append(out, convertOne(raw, f, secrets))
	}
	slices.SortFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), cmp.Compare(a.RuleID, b.RuleID))
	})
	return slices.CompactFunc(out, func(a, b Finding) bool { return a == b })
}

func convertOne(raw string, f report.Finding, secrets []string) Finding {
	out := Finding{RuleID: f.RuleID, Description: f.Description}
	if f.StartColumn == 0 && f.Secret == "" {
		out.Redacted = "[file name matches " + f.RuleID + "]"
		return out
	}
	// gitleaks counts lines from 0 and, after the first line, columns from
	// the preceding newline.
	out.Line = f.StartLine + 1
	out.Column = f.StartColumn
	if f.StartLine > 0 {
		out.Column--
	}
	out.Redacted = preview(raw, out.Line, out.Column, secrets)
	return out
}

const previewContext = 60

// preview is the text of the finding's line before the match followed by a
// redaction marker. Every known secret and match of the file is scrubbed
// from it, and nothing from the match's start on is shown.
func preview(raw string, line, col int, secrets []string) string {
	text := lineText(raw, line)
	if col < 1 || col-1 > len(text) {
		col = 1
	}
	before := text[:col-1]
	for _, s := range secrets {
		if len(s) >= 4 {
			before = strings.ReplaceAll(before, s, "[REDACTED]")
		}
	}
	before = tail(sanitize(before), previewContext)
	return strings.TrimLeft(before, " ") + "[REDACTED]"
}

// lineText returns the 1-based line of raw, without its newline.
func lineText(raw string, line int) string {
	for i := 1; i < line; i++ {
		nl := strings.IndexByte(raw, '\n')
		if nl < 0 {
			return ""
		}
		raw = raw[nl+1:]
	}
	if nl := strings.IndexByte(raw, '\n'); nl >= 0 {
		raw = raw[:nl]
	}
	return raw
}

// sanitize makes s safe to print on one terminal line.
func sanitize(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "?")
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// tail keeps the last n runes of s, marking a cut with an ellipsis.
func tail(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-n:])
}

// fingerprint hashes everything that decides a verdict: the merged rules,
// the allowlists, the inline-allow and decoding settings, whether path
// allowlists are ignored, and the engine.
func fingerprint(fc fileConfig, cfg Config, ignorePaths bool) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	parts := []any{
		engineVersion, regexEngine, fc.Rules, fc.Allowlists,
		cfg.AllowPaths, cfg.AllowRegexes, cfg.AllowStopwords,
		cfg.HonorInlineAllow, cfg.decodeDepth(), ignorePaths,
	}
	for _, p := range parts {
		if err := enc.Encode(p); err != nil {
			return "", fmt.Errorf("ruleset fingerprint: %w", err)
		}
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:]), nil
}
