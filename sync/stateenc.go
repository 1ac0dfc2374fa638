package memsync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// encodeState is json.Marshal(st), byte for byte, in about half its time
// for a large repo. Three maps grow with the repo's notes and are
// encoded again on every save: the server's checksums, the merge base and
// the index. encodeState has encoding/json write the state without them
// (nil maps write null) and writes them in those places itself. Every
// other field, one added later included, stays encoding/json's. It
// writes into buf's memory when buf has room (the bytes of a save before
// the last, which no one holds any more), so a repo's saves reuse two
// buffers instead of making a new one of the state's size each time.
func encodeState(st *State, buf []byte) ([]byte, error) {
	rest := *st
	rest.ServerChecksums, rest.Base, rest.Index = nil, nil, nil
	head, err := marshalState(&rest)
	if err != nil {
		return nil, err
	}
	// Each of these appears once: the state's other maps and lists hold
	// numbers, strings or objects, never null, and a string cannot hold an
	// unescaped quote.
	const nullMaps, nullIndex = `,"serverChecksums":null,"base":null,`, `,"index":null`
	i := bytes.Index(head, []byte(nullMaps))
	j := bytes.LastIndex(head, []byte(nullIndex))
	if i < 0 || j < i || bytes.Count(head, []byte(nullMaps)) != 1 || bytes.Count(head, []byte(nullIndex)) != 1 {
		return marshalState(st) // not the form expected: the whole state the slow way
	}
	keys := sortedKeys(st.Base, nil) // the three maps mostly name the same keys
	out := slices.Grow(buf[:0], len(head)+stateMapsSize(st))
	out = append(out, head[:i]...)
	out = append(out, `,"serverChecksums":`...)
	out = appendMap(out, st.ServerChecksums, sortedKeys(st.ServerChecksums, keys), appendJSONString)
	out = append(out, `,"base":`...)
	out = appendMap(out, st.Base, keys, appendJSONString)
	out = append(out, head[i+len(nullMaps)-1:j]...) // from the comma after base
	out = append(out, `,"index":`...)
	out = appendMap(out, st.Index, sortedKeys(st.Index, keys), appendIndexEntry)
	return append(out, head[j+len(nullIndex):]...), nil
}

// sortedKeys returns m's keys sorted: like, when m has the keys like
// holds (sorted), and no others.
func sortedKeys[V any](m map[string]V, like []string) []string {
	if len(m) == len(like) {
		same := true
		for _, k := range like {
			if _, ok := m[k]; !ok {
				same = false
				break
			}
		}
		if same {
			return like
		}
	}
	return slices.Sorted(maps.Keys(m))
}

func marshalState(st *State) ([]byte, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	return data, nil
}

// stateMapsSize is about what the three maps take encoded.
func stateMapsSize(st *State) int {
	return 120*(len(st.ServerChecksums)+len(st.Base)) + 200*len(st.Index)
}

// appendMap appends m, whose keys sorted are keys, as encoding/json writes
// it, each value with value: null for a nil map.
func appendMap[V any](b []byte, m map[string]V, keys []string, value func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for n, k := range keys {
		if n > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = value(b, m[k])
	}
	return append(b, '}')
}

// appendIndexEntry appends e as encoding/json writes it.
func appendIndexEntry(b []byte, e IndexEntry) []byte {
	b = append(b, `{"size":`...)
	b = strconv.AppendInt(b, e.Size, 10)
	b = append(b, `,"mtimeNs":`...)
	b = strconv.AppendInt(b, e.MtimeNs, 10)
	b = append(b, `,"inode":`...)
	b = strconv.AppendUint(b, e.Inode, 10)
	b = append(b, `,"hash":`...)
	b = appendJSONString(b, e.Hash)
	if e.Racy {
		b = append(b, `,"racy":true`...)
	}
	return append(b, '}')
}

// appendJSONString appends s quoted as encoding/json quotes it. A string
// of printable ASCII that needs no escape (a checksum, most note names)
// is copied; any other goes through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !plainJSON[s[i]] {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON marks the bytes encoding/json writes in a string as they are:
// printable ASCII but the quote, the backslash and the three it escapes
// for HTML.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()
