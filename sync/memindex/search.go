package memindex

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Hit is one note a search found.
type Hit struct {
	Note
	Score float64
	// Line is the 1-based line of the snippet, 0 when the words matched
	// only the note's key, name or description.
	Line int
	// Snippet is the part of that line around the first word matched.
	Snippet string
}

// The ranking: BM25 with its usual constants; a word that only starts
// with a query word (of at least minPrefix bytes) counts prefixWeight as
// much as the word itself.
const (
	bm25K1       = 1.2
	bm25B        = 0.75
	prefixWeight = 0.5
	minPrefix    = 3
)

// Search returns at most limit notes that hold words of query, best
// first: ranked by BM25 over their words, those of the key, name and
// description counting more; equal scores by key.
func (ix *Index) Search(query string, limit int) []Hit {
	qs := terms(query)
	if len(qs) == 0 || limit <= 0 {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	scores := map[*doc]float64{}
	for _, ms := range ix.expand(qs) {
		for d, s := range ix.scoreTerm(ms) {
			scores[d] += s
		}
	}
	hits := make([]Hit, 0, len(scores))
	for d, s := range scores {
		hits = append(hits, Hit{Note: d.Note, Score: s})
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Key, b.Key))
	})
	hits = hits[:min(limit, len(hits))]
	for i := range hits {
		hits[i].Line, hits[i].Snippet = snippet(ix.docs[hits[i].Key].text, qs)
	}
	return hits
}

// match is an indexed word that matches a query word, and how much it
// counts.
type match struct {
	term   string
	weight float64
}

// expand returns, per query word, the indexed words it matches: itself,
// and the words it starts, found in one pass over the vocabulary.
func (ix *Index) expand(qs []string) [][]match {
	out := make([][]match, len(qs))
	for i, q := range qs {
		if _, ok := ix.postings[q]; ok {
			out[i] = append(out[i], match{q, 1})
		}
	}
	for t := range ix.postings {
		for i, q := range qs {
			if len(q) >= minPrefix && len(t) > len(q) && strings.HasPrefix(t, q) {
				out[i] = append(out[i], match{t, prefixWeight})
			}
		}
	}
	return out
}

// scoreTerm scores each note for one query word: the best of the words
// that match it.
func (ix *Index) scoreTerm(ms []match) map[*doc]float64 {
	out := map[*doc]float64{}
	n := float64(len(ix.docs))
	avg := ix.totalLen / max(n, 1)
	for _, m := range ms {
		p := ix.postings[m.term]
		df := float64(len(p))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for d, tf := range p {
			norm := tf + bm25K1*(1-bm25B+bm25B*d.length/max(avg, 1))
			if s := m.weight * idf * tf * (bm25K1 + 1) / norm; s > out[d] {
				out[d] = s
			}
		}
	}
	return out
}
