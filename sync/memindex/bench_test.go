package memindex

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
)

// benchNotes is how many notes the benchmarks index: the size the search
// must answer within 50 ms p99 (docs/BENCHMARKS.md).
const benchNotes = 2000

// vocabulary returns n made-up words; rank i is drawn with a Zipf law, as
// words of prose are.
func vocabulary(n int) []string {
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sta", "dep", "pos", "gre", "tes", "ing", "ver", "con", "fig", "ser", "ax", "bu", "zo"}
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, n)
	for i := range words {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		words[i] = b.String()
	}
	return words
}

// benchDir writes notes of 2 to 5 KB, frontmatter and prose, into a new
// directory.
func benchDir(b *testing.B, notes int) string {
	dir := b.TempDir()
	words := vocabulary(5000)
	r := rand.New(rand.NewPCG(3, 4))
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(words)-1))
	sentence := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[zipf.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	for i := range notes {
		var t strings.Builder
		fmt.Fprintf(&t, "---\nname: %s\ndescription: %s\ntype: project\n---\n", sentence(3), sentence(10))
		for range 20 + r.IntN(40) {
			t.WriteString(sentence(6+r.IntN(9)) + ".\n")
		}
		p := filepath.Join(dir, fmt.Sprintf("topic%02d", i%40), fmt.Sprintf("note%04d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(t.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// benchQueries returns n queries of one to three words, common and rare,
// some of them a word's first four letters.
func benchQueries(n int) []string {
	words := vocabulary(5000)
	r := rand.New(rand.NewPCG(5, 6))
	out := make([]string, n)
	for i := range out {
		q := make([]string, 1+r.IntN(3))
		for j := range q {
			w := words[r.IntN(len(words))]
			if r.IntN(4) == 0 && len(w) > 4 {
				w = w[:4]
			}
			q[j] = w
		}
		out[i] = strings.Join(q, " ")
	}
	return out
}

func BenchmarkRefresh2000(b *testing.B) {
	src := memsync.NewNotes(benchDir(b, benchNotes), nil)
	for b.Loop() {
		if _, err := New().Refresh(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch2000 reports the 99th percentile of the queries' times
// as p99-ms, besides the mean.
func BenchmarkSearch2000(b *testing.B) {
	ix := New()
	if _, err := ix.Refresh(memsync.NewNotes(benchDir(b, benchNotes), nil)); err != nil {
		b.Fatal(err)
	}
	qs := benchQueries(200)
	var took []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		ix.Search(qs[i%len(qs)], 10)
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)*99/100])/float64(time.Millisecond), "p99-ms")
}
