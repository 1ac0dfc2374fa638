package scan

import (
	"context"
	"fmt"
	"testing"

	"github.com/teammemd/teammemd/internal/pausebench"
	"github.com/teammemd/teammemd/scan/internal/corpus"
)

// BenchmarkFileCold scans distinct 4 KB notes with an empty cache, from
// the keyword-dense corpus and from the clean one.
func BenchmarkFileCold(b *testing.B) {
	for kind, note := range map[string]func(int, int) string{"dense": corpus.Note, "clean": corpus.CleanNote} {
		b.Run(kind, func(b *testing.B) {
			s := newScanner(b, Config{CacheMaxEntries: 1})
			notes := make([][]byte, 256)
			for i := range notes {
				notes[i] = []byte(note(i+1, 4096))
			}
			b.SetBytes(4096)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				s.cache = loadCache("", s.fingerprint, 1, s.log)
				if _, err := s.File(context.Background(), "n.md", notes[i%len(notes)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEntryCold scans distinct 4 KB values of wire entries with an
// empty cache: through ScanEntries, and through File on a copy of the
// value as bytes.
func BenchmarkEntryCold(b *testing.B) {
	s := newScanner(b, Config{CacheMaxEntries: 1})
	notes := make([]string, 256)
	for i := range notes {
		notes[i] = corpus.Note(i+1, 4096)
	}
	for name, scan := range map[string]func(string) error{
		"ScanEntries": func(v string) error {
			_, err := s.ScanEntries(context.Background(), map[string]string{"n.md": v})
			return err
		},
		"FileCopy": func(v string) error {
			_, err := s.File(context.Background(), "n.md", []byte(v))
			return err
		},
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(4096)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s.cache = loadCache("", s.fingerprint, 1, s.log)
				if err := scan(notes[i%len(notes)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFileCached scans an unchanged note: a cache hit.
func BenchmarkFileCached(b *testing.B) {
	s := newScanner(b, Config{})
	note := []byte(corpus.Note(1, 4096))
	b.SetBytes(int64(len(note)))
	for b.Loop() {
		if _, err := s.File(context.Background(), "n.md", note); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPathsCold scans 1000 notes of 4 KB on disk with an empty cache.
func BenchmarkPathsCold(b *testing.B) {
	dir := b.TempDir()
	if err := corpus.WriteDir(dir, 1000, 4096); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(1000 * 4096)
	for b.Loop() {
		s := newScanner(b, Config{})
		if _, err := s.Paths(context.Background(), []string{dir}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFileAfterPause scans a distinct note after 300 ms of quiet,
// untimed, as a save's scan runs in a server or a daemon that idled since
// the last one: little of the scanner is still in the processor's caches.
// Its figure is µs/scan, the scans alone (pausebench.Run).
func BenchmarkFileAfterPause(b *testing.B) {
	notes := map[string]func(int) string{
		"short": func(i int) string {
			return fmt.Sprintf("---\nname: build %d\n---\nThe build uses make %d; run the tests with go test.\n", i, i)
		},
		"clean4KB": func(i int) string { return corpus.CleanNote(i+1, 4096) },
	}
	for name, note := range notes {
		b.Run(name, func(b *testing.B) {
			s := newScanner(b, Config{CacheMaxEntries: 1})
			pausebench.Run(b, "scan", func(i int) []byte { return []byte(note(i)) }, func(text []byte) error {
				_, err := s.File(context.Background(), "n.md", text)
				return err
			})
		})
	}
}
