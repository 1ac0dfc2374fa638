package memsync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/teammemd/teammemd/server/api"
)

// upload is one entry to push.
type upload struct {
	Key   string
	Value string
	Sum   string
}

// batch is one PUT body's worth of work.
type batch struct {
	Entries []upload
	Deletes []string
	// Bytes is the body size as PROTOCOL.md section 6 counts it.
	Bytes int
}

// deleteFieldBytes is what `,"soft_delete_keys":[]` adds to a body.
const deleteFieldBytes = 22

// packBatches sorts entries and deletes by key and packs them greedily into
// batches whose counted size stays within limit (see packer).
func packBatches(entries []upload, deletes []string, limit int) []batch {
	sort.Slice(entries, func(i, j int) bool { return entries[i].Key < entries[j].Key })
	deletes = append([]string(nil), deletes...)
	sort.Strings(deletes)
	var out []batch
	p := newPacker(limit)
	for _, u := range entries {
		if b, full := p.add(u); full {
			out = append(out, b)
		}
	}
	for _, k := range deletes {
		if b, full := p.addDelete(k); full {
			out = append(out, b)
		}
	}
	if b, ok := p.flush(); ok {
		out = append(out, b)
	}
	return out
}

// packer fills batches greedily, in the order it is given entries and then
// deletes, keeping each batch's counted size within limit: 14 bytes for
// {"entries":{}} plus api.BatchEntryBytes per entry; each delete costs its
// encoded key and a comma, plus the field once per batch. An item too big
// for any batch goes alone. A push hands it entries as they are scanned and
// sends each batch it fills at once.
type packer struct {
	limit int
	cur   batch
}

func newPacker(limit int) *packer {
	return &packer{limit: limit, cur: batch{Bytes: api.BatchEnvelopeBytes}}
}

// add puts u in the batch being filled; when u does not fit there, it
// returns the full batch first, and u starts the next one.
func (p *packer) add(u upload) (batch, bool) {
	n := api.BatchEntryBytes(u.Key, u.Value)
	var full batch
	var ok bool
	if len(p.cur.Entries) > 0 && p.cur.Bytes+n > p.limit {
		full, ok = p.flush()
	}
	p.cur.Entries = append(p.cur.Entries, u)
	p.cur.Bytes += n
	return full, ok
}

// addDelete puts the deletion of k in the batch being filled, as add does.
func (p *packer) addDelete(k string) (batch, bool) {
	n := api.EncodedLen(k) + 1
	if len(p.cur.Deletes) == 0 {
		n += deleteFieldBytes
	}
	var full batch
	var ok bool
	if (len(p.cur.Entries) > 0 || len(p.cur.Deletes) > 0) && p.cur.Bytes+n > p.limit {
		full, ok = p.flush()
		n = api.EncodedLen(k) + 1 + deleteFieldBytes
	}
	p.cur.Deletes = append(p.cur.Deletes, k)
	p.cur.Bytes += n
	return full, ok
}

// flush returns the batch being filled, when it holds anything, and starts
// an empty one.
func (p *packer) flush() (batch, bool) {
	b := p.cur
	p.cur = batch{Bytes: api.BatchEnvelopeBytes}
	return b, len(b.Entries) > 0 || len(b.Deletes) > 0
}

// encodePut encodes a batch as a PUT body without HTML escaping, so its
// size matches the count packBatches made.
func encodePut(b batch) ([]byte, error) {
	req := api.PutRequest{Entries: make(map[string]string, len(b.Entries)), SoftDeleteKeys: b.Deletes}
	for _, u := range b.Entries {
		req.Entries[u.Key] = u.Value
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(req); err != nil {
		return nil, fmt.Errorf("encode PUT body: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
