package memsync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// encodeProvenance is json.Marshal(p), byte for byte, in a fraction of
// its time: both daemons of a save write the record again once the repo
// is quiet, and its Keys, one change a note, are nearly all of it.
// encoding/json writes the record without them (the last field: a nil map
// writes null) and encodeProvenance writes them in that place itself,
// each change as encoding/json would. A record it cannot write so (a
// field added after Keys, a time encoding/json refuses) goes the slow way
// whole, with its error. It writes into buf's memory when buf has room
// (the bytes of the last refresh's write, which no one holds any more).
func encodeProvenance(p *Provenance, buf []byte) ([]byte, error) {
	rest := *p
	rest.Keys = nil
	head, err := marshalProvenance(&rest)
	if err != nil {
		return nil, err
	}
	const nullKeys = `,"keys":null}`
	if !bytes.HasSuffix(head, []byte(nullKeys)) {
		return marshalProvenance(p)
	}
	out := slices.Grow(buf[:0], len(head)+provenanceKeySize*len(p.Keys))
	out = append(out, head[:len(head)-len(nullKeys)]...)
	out = append(out, `,"keys":`...)
	ok := true
	out = appendMap(out, p.Keys, slices.Sorted(maps.Keys(p.Keys)), func(b []byte, c Change) []byte {
		b, err := appendChange(b, c)
		ok = ok && err == nil
		return b
	})
	if !ok {
		return marshalProvenance(p)
	}
	return append(out, '}'), nil
}

// provenanceKeySize is about what one key and its change take encoded.
const provenanceKeySize = 220

func marshalProvenance(p *Provenance) ([]byte, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode provenance: %w", err)
	}
	return data, nil
}

// appendChange appends c as encoding/json writes it; an error when its
// time is one encoding/json refuses (a year outside 0 to 9999).
func appendChange(b []byte, c Change) ([]byte, error) {
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, c.Version, 10)
	b = append(b, `,"subject":`...)
	b = appendJSONString(b, c.Subject)
	b = append(b, `,"time":"`...)
	b, err := c.Time.AppendText(b) // what Time.MarshalJSON quotes
	if err != nil {
		return b, err
	}
	b = append(b, '"')
	if c.Checksum != "" {
		b = append(b, `,"checksum":`...)
		b = appendJSONString(b, c.Checksum)
	}
	if c.Deleted {
		b = append(b, `,"deleted":true`...)
	}
	return append(b, '}'), nil
}
