package scan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// verdictCache remembers the findings for (ruleset, path, content). It is
// bounded: past max entries the least recently used tenth is dropped.
type verdictCache struct {
	path        string
	fingerprint string
	max         int
	log         *slog.Logger

	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
	seq     uint64
	dirty   bool
}

type cacheKey [sha256.Size]byte

type cacheEntry struct {
	findings []Finding
	seq      uint64
}

// cacheFile is the persisted form. Findings are stored as they are
// returned, already redacted, without the file name.
type cacheFile struct {
	Version     int             `json:"version"`
	Fingerprint string          `json:"fingerprint"`
	Entries     []cacheFileItem `json:"entries"`
}

type cacheFileItem struct {
	Key      string    `json:"k"`
	Seq      uint64    `json:"s"`
	Findings []Finding `json:"f,omitempty"`
}

const cacheVersion = 1

// loadCache reads the cache file; a missing, corrupt or outdated file gives
// an empty cache (the latter two with a warning), never an error.
func loadCache(path, fingerprint string, max int, log *slog.Logger) *verdictCache {
	c := &verdictCache{path: path, fingerprint: fingerprint, max: max, log: log, entries: make(map[cacheKey]*cacheEntry)}
	if path == "" {
		return c
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c
	}
	if err != nil {
		log.Warn("scan cache unreadable, starting empty", "path", path, "err", err)
		return c
	}
	var cf cacheFile
	if err := json.Unmarshal(data, &cf); err != nil || cf.Version != cacheVersion {
		log.Warn("scan cache corrupt, discarding", "path", path, "err", err, "version", cf.Version)
		c.dirty = true
		return c
	}
	if cf.Fingerprint != fingerprint {
		log.Info("scan rules changed, discarding cached verdicts", "path", path)
		c.dirty = true
		return c
	}
	c.fill(cf.Entries)
	return c
}

func (c *verdictCache) fill(items []cacheFileItem) {
	slices.SortFunc(items, func(a, b cacheFileItem) int { return -compareSeq(a.Seq, b.Seq) })
	for _, it := range items {
		if len(c.entries) >= c.max {
			c.dirty = true
			break
		}
		var k cacheKey
		if b, err := hex.DecodeString(it.Key); err != nil || len(b) != len(k) {
			c.dirty = true
			continue
		} else {
			copy(k[:], b)
		}
		c.entries[k] = &cacheEntry{findings: it.Findings, seq: it.Seq}
		c.seq = max(c.seq, it.Seq)
	}
}

func compareSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// key hashes the fingerprint, the path (path allowlists and path rules make
// a verdict depend on it) and the content.
func (c *verdictCache) key(path string, data []byte) cacheKey {
	h := c.keyHash(path)
	h.Write(data)
	var k cacheKey
	h.Sum(k[:0])
	return k
}

// keyText is key of content held in a string, hashed without a copy of
// the whole: a chunk at a time through a buffer on the stack.
func (c *verdictCache) keyText(path, text string) cacheKey {
	h := c.keyHash(path)
	var chunk [1024]byte
	for len(text) > 0 {
		n := copy(chunk[:], text)
		h.Write(chunk[:n])
		text = text[n:]
	}
	var k cacheKey
	h.Sum(k[:0])
	return k
}

// keyHash is a key's hash with the fingerprint and the path written.
func (c *verdictCache) keyHash(path string) hash.Hash {
	h := sha256.New()
	h.Write([]byte(c.fingerprint))
	h.Write([]byte{0})
	h.Write([]byte(path))
	h.Write([]byte{0})
	return h
}

func (c *verdictCache) get(k cacheKey) ([]Finding, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	c.seq++
	e.seq = c.seq // recency only: not worth a rewrite on its own
	return e.findings, true
}

func (c *verdictCache) put(k cacheKey, findings []Finding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.entries[k] = &cacheEntry{findings: findings, seq: c.seq}
	c.dirty = true
	if len(c.entries) > c.max {
		c.evict()
	}
}

// evict drops the least recently used tenth of the entries, and always
// keeps the newest one.
func (c *verdictCache) evict() {
	seqs := make([]uint64, 0, len(c.entries))
	for _, e := range c.entries {
		seqs = append(seqs, e.seq)
	}
	slices.Sort(seqs)
	cut := seqs[len(seqs)-max(1, c.max*9/10)]
	for k, e := range c.entries {
		if e.seq < cut {
			delete(c.entries, k)
		}
	}
}

func (c *verdictCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// flush writes the cache atomically: a temporary file in the same
// directory, fsync, rename, fsync of the directory.
func (c *verdictCache) flush() error {
	if c.path == "" {
		return nil
	}
	c.mu.Lock()
	if !c.dirty {
		c.mu.Unlock()
		return nil
	}
	cf := cacheFile{Version: cacheVersion, Fingerprint: c.fingerprint, Entries: make([]cacheFileItem, 0, len(c.entries))}
	for k, e := range c.entries {
		cf.Entries = append(cf.Entries, cacheFileItem{Key: hex.EncodeToString(k[:]), Seq: e.seq, Findings: e.findings})
	}
	c.dirty = false
	c.mu.Unlock()
	data, err := json.Marshal(cf)
	if err == nil {
		err = writeFileAtomic(c.path, data)
	}
	if err != nil {
		c.mu.Lock()
		c.dirty = true
		c.mu.Unlock()
		return fmt.Errorf("write scan cache: %w", err)
	}
	return nil
}

func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
