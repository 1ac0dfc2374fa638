// Package memindex is an in-memory full-text index of the notes of one
// team directory, for "teammemd mcp": per note its key, the name and
// description of its frontmatter, size, modification time, checksum and
// text, and an inverted index of its words, searched with BM25 ranking
// and prefix matching, with a snippet per hit. It is built once from the
// directory (Refresh) and kept current note by note as files change
// (RefreshKeys, Put, Remove). It is safe for concurrent use.
package memindex

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// Note is what the index knows of one note besides its text.
type Note struct {
	// Key is the note's path in the team directory, with "/".
	Key string
	// Name and Description are its frontmatter's; empty when it has none.
	Name, Description string
	Size              int64
	ModTime           time.Time
	// Sum is the entry checksum of its content.
	Sum string
}

// Index holds the notes of one team directory.
type Index struct {
	mu       sync.RWMutex
	docs     map[string]*doc
	postings map[string]map[*doc]float64 // term -> note -> weighted count
	totalLen float64
}

// doc is one indexed note.
type doc struct {
	Note
	text   string
	terms  map[string]float64
	length float64
}

// New returns an empty index.
func New() *Index {
	return &Index{docs: map[string]*doc{}, postings: map[string]map[*doc]float64{}}
}

// Put indexes text as key's note, modified at modTime, and reports
// whether the note is new or its content changed.
func (ix *Index) Put(key string, text []byte, modTime time.Time) (added, changed bool) {
	d := newDoc(key, string(text), modTime)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	old, ok := ix.docs[key]
	if ok {
		ix.drop(old)
	}
	ix.docs[key] = d
	ix.totalLen += d.length
	for t, w := range d.terms {
		p := ix.postings[t]
		if p == nil {
			p = map[*doc]float64{}
			ix.postings[t] = p
		}
		p[d] = w
	}
	return !ok, ok && old.Sum != d.Sum
}

// Remove drops key's note and reports whether the index held it.
func (ix *Index) Remove(key string) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	d, ok := ix.docs[key]
	if ok {
		ix.drop(d)
		delete(ix.docs, key)
	}
	return ok
}

// drop takes d's words out of the postings.
func (ix *Index) drop(d *doc) {
	ix.totalLen -= d.length
	for t := range d.terms {
		p := ix.postings[t]
		delete(p, d)
		if len(p) == 0 {
			delete(ix.postings, t)
		}
	}
}

// Get returns key's note and its text.
func (ix *Index) Get(key string) (Note, string, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	d, ok := ix.docs[key]
	if !ok {
		return Note{}, "", false
	}
	return d.Note, d.text, true
}

// Notes returns every note whose key starts with prefix, by key.
func (ix *Index) Notes(prefix string) []Note {
	ix.mu.RLock()
	out := make([]Note, 0, len(ix.docs))
	for k, d := range ix.docs {
		if strings.HasPrefix(k, prefix) {
			out = append(out, d.Note)
		}
	}
	ix.mu.RUnlock()
	slices.SortFunc(out, func(a, b Note) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// Len is the number of notes indexed.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.docs)
}

// newDoc indexes one note: the words of its key, name and description
// count headWeight times each, those of its text once.
func newDoc(key, text string, modTime time.Time) *doc {
	name, desc := memsync.NoteFields([]byte(text))
	d := &doc{
		Note:  Note{Key: key, Name: name, Description: desc, Size: int64(len(text)), ModTime: modTime, Sum: api.EntryChecksum(text)},
		text:  text,
		terms: map[string]float64{},
	}
	count := func(w float64) func(string) {
		return func(t string) {
			d.terms[t] += w
			d.length += w
		}
	}
	eachTerm(key, count(headWeight))
	eachTerm(name, count(headWeight))
	eachTerm(desc, count(headWeight))
	eachTerm(text, count(1))
	return d
}

// headWeight is how much more a word of a note's key, name or description
// counts than one of its text.
const headWeight = 3
