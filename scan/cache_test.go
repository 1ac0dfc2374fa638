package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestCacheHitIsUsed(t *testing.T) {
	s := newScanner(t, Config{})
	data := []byte("plain note\n")
	s.cache.put(s.cache.key("a.md", data), []Finding{{RuleID: "marker"}})
	fs, err := s.File(context.Background(), "a.md", data)
	if err != nil || len(fs) != 1 || fs[0].RuleID != "marker" || fs[0].File != "a.md" {
		t.Errorf("File(cached) = %v, %v, want the cached marker for a.md", fs, err)
	}
}

// A value scanned from a string has the verdict key of the same bytes, so
// ScanEntries and File share verdicts.
func TestKeyTextIsKey(t *testing.T) {
	s := newScanner(t, Config{})
	for _, n := range []int{0, 1, 1023, 1024, 1025, 5000} {
		text := strings.Repeat("note\n", n)[:n]
		if got, want := s.cache.keyText("a.md", text), s.cache.key("a.md", []byte(text)); got != want {
			t.Errorf("keyText(a.md, %d bytes) = %x, want key's %x", n, got, want)
		}
	}
	if s.cache.keyText("a.md", "x") == s.cache.keyText("b.md", "x") {
		t.Error("keyText of one text at two paths is the same key")
	}
}

func TestCachePersistsAndInvalidates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "scan-cache.json")
	s := newScanner(t, Config{}, WithCacheFile(path))
	for i := range 5 {
		if _, err := s.File(context.Background(), fmt.Sprintf("n%d.md", i), []byte(awsNote)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(tmps) != 0 {
		t.Errorf("Flush left temporary files %v", tmps)
	}
	again := newScanner(t, Config{}, WithCacheFile(path))
	if got := again.cache.len(); got != 5 {
		t.Errorf("cache entries after reload = %d, want 5", got)
	}
	other := newScanner(t, Config{AllowStopwords: []string{"zzz"}}, WithCacheFile(path))
	if got := other.cache.len(); got != 0 {
		t.Errorf("cache entries under another fingerprint = %d, want 0", got)
	}
	if s.Fingerprint() == other.Fingerprint() {
		t.Errorf("Fingerprint() equal for different allowlists")
	}
}

func TestCorruptCacheIsDiscarded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scan-cache.json")
	for _, text := range []string{"{not json", `{"version":99}`, `{"version":1,"fingerprint":"x","entries":[{"k":"zz"}]}`} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		s := newScanner(t, Config{}, WithCacheFile(path), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		if got := s.cache.len(); got != 0 {
			t.Errorf("cache entries from %q = %d, want 0", text, got)
		}
		if _, err := s.File(context.Background(), "a.md", []byte(awsNote)); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(); err != nil {
			t.Errorf("Flush after %q = %v", text, err)
		}
		var cf cacheFile
		data, _ := os.ReadFile(path)
		if err := json.Unmarshal(data, &cf); err != nil || len(cf.Entries) != 1 {
			t.Errorf("rewritten cache = %d entries, %v; want 1", len(cf.Entries), err)
		}
		if !strings.Contains(logs.String(), "scan") {
			t.Errorf("New(corrupt %q) logged %q, want a warning", text, logs.String())
		}
	}
}

func TestCacheIsBounded(t *testing.T) {
	for _, max := range []int{1, 2, 10} {
		s := newScanner(t, Config{CacheMaxEntries: max})
		for i := range 25 {
			if _, err := s.File(context.Background(), "a.md", []byte(fmt.Sprintf("note %d\n", i))); err != nil {
				t.Fatal(err)
			}
		}
		if got := s.cache.len(); got > max {
			t.Errorf("max %d: cache entries = %d, want at most %d", max, got, max)
		}
		if _, ok := s.cache.get(s.cache.key("a.md", []byte("note 24\n"))); !ok {
			t.Errorf("max %d: the newest entry was evicted", max)
		}
	}
}

func TestConcurrentScans(t *testing.T) {
	s := newScanner(t, Config{Workers: 4})
	samples := recallSamples(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < len(samples); i += 8 {
				smp := samples[i]
				if _, err := s.File(context.Background(), smp.path, []byte(smp.text)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	entries := map[string]string{}
	for i, smp := range samples[:40] {
		entries[fmt.Sprintf("k%d.md", i)] = smp.text
	}
	ids, err := s.ScanEntries(context.Background(), entries)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err != nil || len(ids) == 0 {
		t.Errorf("ScanEntries = %v, %v, want rule ids", ids, err)
	}
}

func FuzzCacheFile(f *testing.F) {
	f.Add([]byte(`{"version":1,"fingerprint":"x","entries":[]}`))
	f.Add([]byte("{not json"))
	f.Add([]byte(`{"version":1,"fingerprint":"x","entries":[{"k":"zz"}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "cache.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c := loadCache(path, "x", 4, slog.New(slog.DiscardHandler))
		if c.len() > 4 {
			t.Errorf("loadCache = %d entries, want at most 4", c.len())
		}
	})
}
