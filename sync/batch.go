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
// batches whose counted size stays within limit: 14 bytes for
// {"entries":{}} plus api.BatchEntryBytes per entry. Deletes follow the
// entries, each costing its encoded key and a comma, plus the field once per
// batch. An item too big for any batch goes alone.
func packBatches(entries []upload, deletes []string, limit int) []batch {
	sort.Slice(entries, func(i, j int) bool { return entries[i].Key < entries[j].Key })
	deletes = append([]string(nil), deletes...)
	sort.Strings(deletes)
	var out []batch
	cur := batch{Bytes: api.BatchEnvelopeBytes}
	flush := func() {
		if len(cur.Entries) > 0 || len(cur.Deletes) > 0 {
			out = append(out, cur)
		}
		cur = batch{Bytes: api.BatchEnvelopeBytes}
	}
	for _, u := range entries {
		n := api.BatchEntryBytes(u.Key, u.Value)
		if len(cur.Entries) > 0 && cur.Bytes+n > limit {
			flush()
		}
		cur.Entries = append(cur.Entries, u)
		cur.Bytes += n
	}
	for _, k := range deletes {
		n := api.EncodedLen(k) + 1
		if len(cur.Deletes) == 0 {
			n += deleteFieldBytes
		}
		if (len(cur.Entries) > 0 || len(cur.Deletes) > 0) && cur.Bytes+n > limit {
			flush()
			n = api.EncodedLen(k) + 1 + deleteFieldBytes
		}
		cur.Deletes = append(cur.Deletes, k)
		cur.Bytes += n
	}
	flush()
	return out
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
