package scan

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/scan/internal/corpus"
)

type sample struct {
	ruleID, path, text string
}

// recallSamples decodes testdata/recall.tsv (see internal/gensamples).
func recallSamples(t testing.TB) []sample {
	t.Helper()
	f, err := os.Open("testdata/recall.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sample
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 {
			t.Fatalf("recall.tsv: bad line %q", sc.Text())
		}
		text, err := base64.StdEncoding.DecodeString(parts[2])
		if err != nil {
			t.Fatalf("recall.tsv: %s: %v", parts[0], err)
		}
		out = append(out, sample{parts[0], parts[1], string(text)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func newScanner(t testing.TB, cfg Config, opts ...Option) *Scanner {
	t.Helper()
	s, err := New(cfg, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func TestRecallEveryDefaultRule(t *testing.T) {
	s := newScanner(t, Config{})
	samples := recallSamples(t)
	covered := map[string]bool{}
	for _, smp := range samples {
		fs, err := s.File(context.Background(), smp.path, []byte(smp.text))
		if err != nil {
			t.Fatalf("File(%s): %v", smp.ruleID, err)
		}
		if !slices.ContainsFunc(fs, func(f Finding) bool { return f.RuleID == smp.ruleID }) {
			t.Errorf("File(sample of %s) = %v, want a %s finding", smp.ruleID, RuleIDs(fs), smp.ruleID)
		}
		covered[smp.ruleID] = true
	}
	for id := range s.engine.all().Rules {
		if !covered[id] {
			t.Errorf("default rule %s has no recall sample", id)
		}
	}
}

func TestCleanNotes(t *testing.T) {
	s := newScanner(t, Config{})
	fs, err := s.Paths(context.Background(), []string{"testdata/clean"})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 0 {
		t.Errorf("Paths(testdata/clean) = %v, want no findings", fs)
	}
	for i := 1; i < 60; i++ {
		fs, err := s.File(context.Background(), "note.md", []byte(corpus.Note(i, 4096)))
		if err != nil || len(fs) != 0 {
			t.Errorf("File(corpus.Note(%d)) = %v, %v, want none", i, fs, err)
		}
		fs, err = s.File(context.Background(), "note.md", []byte(corpus.CleanNote(i, 4096)))
		if err != nil || len(fs) != 0 {
			t.Errorf("File(corpus.CleanNote(%d)) = %v, %v, want none", i, fs, err)
		}
	}
	fs, err = s.File(context.Background(), "note.md", []byte(corpus.Note(100, 4096)))
	if err != nil || len(RuleIDs(fs)) != 1 || fs[0].RuleID != "aws-access-token" {
		t.Errorf("File(corpus.Note(100)) = %v, %v, want one aws-access-token", fs, err)
	}
}

// TestNoSecretInAnyOutput scans every recall sample, renders every report
// format, the cache file and the errors, and checks that no secret appears.
func TestNoSecretInAnyOutput(t *testing.T) {
	dir := t.TempDir()
	cachePath := filepath.Join(dir, "cache.json")
	s := newScanner(t, Config{}, WithCacheFile(cachePath))
	var all []Finding
	var secrets []string
	for _, smp := range recallSamples(t) {
		fs, err := s.File(context.Background(), smp.path, []byte(smp.text))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, fs...)
		for _, f := range plainDetector(s).DetectString(smp.text) {
			if len(f.Secret) >= 8 {
				secrets = append(secrets, f.Secret)
			}
		}
	}
	var out bytes.Buffer
	for _, format := range Formats {
		if err := Write(&out, format, all); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	cached, err := os.ReadFile(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	out.Write(cached)
	_, err = s.Paths(context.Background(), []string{filepath.Join(dir, "missing")})
	out.WriteString(err.Error())
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.ScanEntries(cancelled, map[string]string{"a.md": secrets[0]})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ScanEntries(cancelled) = %v, want context.Canceled", err)
	}
	out.WriteString(err.Error())
	text := out.String()
	for _, sec := range secrets {
		if strings.Contains(text, sec) {
			i := strings.Index(text, sec)
			t.Errorf("a secret of %d bytes appears in the output: %q", len(sec), text[max(0, i-80):i+len(sec)])
		}
	}
	if len(secrets) < 200 {
		t.Errorf("only %d secrets checked, want at least 200", len(secrets))
	}
}
