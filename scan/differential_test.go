package scan

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"

	"github.com/teammemd/teammemd/scan/internal/corpus"
)

// plainDetector is gitleaks' detector over the scanner's whole ruleset,
// with its settings: what the scanner must find, finding for finding.
func plainDetector(s *Scanner) *detect.Detector {
	d := detect.NewDetector(s.engine.all())
	d.MaxDecodeDepth = s.engine.decodeDepth
	d.IgnoreGitleaksAllow = !s.engine.inlineAllow
	return d
}

// findingKeys renders findings as sorted comparable lines.
func findingKeys(fs []report.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %d:%d-%d:%d %q %q %v", f.RuleID, f.StartLine, f.StartColumn,
			f.EndLine, f.EndColumn, f.Match, f.Secret, f.Tags))
	}
	slices.Sort(out)
	return out
}

// sameFindings fails t when the scanner's engine and the plain detector
// disagree on text at path.
func sameFindings(t *testing.T, s *Scanner, plain *detect.Detector, name, text, path string) {
	t.Helper()
	//lint:ignore SA1019 the v8 detector API has no other entry point
	want := findingKeys(plain.DetectContext(context.Background(), detect.Fragment{Raw: text, FilePath: path}))
	got := findingKeys(s.engine.detect(context.Background(), text, path))
	if !slices.Equal(got, want) {
		t.Errorf("%s: engine found\n\t%s\nwant (every rule on the whole text)\n\t%s",
			name, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestSameFindingsAsEveryRule compares the prefiltered scan with gitleaks'
// detector running every rule on the whole text: on gitleaks' own rule
// samples, alone and inside notes, on both benchmark corpora, and on the
// names the key scan builds.
func TestSameFindingsAsEveryRule(t *testing.T) {
	s := newScanner(t, Config{})
	plain := plainDetector(s)
	for _, smp := range recallSamples(t) {
		sameFindings(t, s, plain, "sample of "+smp.ruleID, smp.text, smp.path)
		sameFindings(t, s, plain, "sample of "+smp.ruleID+" in a note", corpus.Note(7, 2048)+smp.text+"\n"+corpus.CleanNote(7, 1024), "team/"+smp.path)
		sameFindings(t, s, plain, "name form of "+smp.ruleID, nameForms(firstLine(smp.text)), "")
		for enc, text := range encodings(firstLine(smp.text)) {
			sameFindings(t, s, plain, enc+" sample of "+smp.ruleID, "value: "+text+"\n", smp.path)
		}
	}
	for i := range 120 {
		sameFindings(t, s, plain, fmt.Sprintf("corpus.Note(%d)", i), corpus.Note(i, 4096), "note.md")
		sameFindings(t, s, plain, fmt.Sprintf("corpus.CleanNote(%d)", i), corpus.CleanNote(i, 4096), "note.md")
	}
}

// encodings are the forms of text gitleaks decodes before scanning again.
func encodings(text string) map[string]string {
	return map[string]string{
		"base64":  base64.StdEncoding.EncodeToString([]byte(text)),
		"hex":     hex.EncodeToString([]byte(text)),
		"percent": url.QueryEscape(text),
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// FuzzSameFindingsAsEveryRule holds the prefiltered scan to the full
// ruleset on any text and path, seeded with the rule samples.
func FuzzSameFindingsAsEveryRule(f *testing.F) {
	for _, smp := range recallSamples(f) {
		f.Add(smp.text, smp.path)
	}
	f.Add(corpus.Note(100, 1024), "note.md")
	f.Add("\u212aey = \"0123456789abcdef0123\"", "a.md")
	s := newScanner(f, Config{})
	plain := plainDetector(s)
	f.Fuzz(func(t *testing.T, text, path string) {
		sameFindings(t, s, plain, "fuzzed text", text, path)
	})
}

// TestKeywordOccurrences checks the keyword pass against a plain search:
// every occurrence of every keyword, overlapping ones too.
func TestKeywordOccurrences(t *testing.T) {
	p := newScanner(t, Config{}).engine.filter
	texts := []string{corpus.Note(3, 4096), corpus.CleanNote(3, 4096), "xoxbxoxp-keykeyskey_secret_keysecret", "AKIAakiaAkIa"}
	for _, text := range texts {
		sameOccurrences(t, p, text)
	}
}

// FuzzKeywordOccurrences holds the keyword pass to a plain search on any
// text, seeded with the rule samples.
func FuzzKeywordOccurrences(f *testing.F) {
	for _, smp := range recallSamples(f) {
		f.Add(smp.text)
	}
	f.Add("xoxbxoxp-keykeyskey_secret_keysecret")
	p := newScanner(f, Config{}).engine.filter
	f.Fuzz(func(t *testing.T, text string) {
		sameOccurrences(t, p, text)
	})
}

// sameOccurrences fails t when the prefilter's pass over text does not
// find each keyword exactly where a plain search of the lower-cased text
// does.
func sameOccurrences(t *testing.T, p *prefilter, text string) {
	t.Helper()
	ps := p.newPass(text)
	lower := string(ps.lower)
	if ps.unusual {
		lower = strings.ToLower(text)
	}
	for n, k := range p.keywords {
		var want []int
		for i := 0; k != "" && i+len(k) <= len(lower); i++ {
			if lower[i:i+len(k)] == k {
				want = append(want, i)
			}
		}
		got := slices.Clone(ps.hits[n])
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("keyword %q in %.30q: at %v, want %v", k, text, got, want)
		}
	}
}
