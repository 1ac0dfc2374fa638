package api

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// worst is text of n bytes that JSON escaping lengthens the most.
func worst(n int) string { return strings.Repeat("<", n) }

// worstRevision is a revision whose every field is as long as it can be.
func worstRevision(lim Limits, content int) Revision {
	size := int64(math.MaxInt64)
	v := worst(content)
	return Revision{
		Key: worst(lim.MaxKeyBytes), Version: math.MaxInt64, Checksum: EntryChecksum(v),
		Subject: worst(maxSubjectBytes), Client: worst(MaxClientBytes), Time: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", -1)),
		Size: &size, Content: &v,
	}
}

// marshaledLen is the length of v as encoding/json writes it.
func marshaledLen(t *testing.T, v any) int64 {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(b))
}

// TestHistoryBodyBytes: the largest page the limits let a server send
// fits the bound, with content and without.
func TestHistoryBodyBytes(t *testing.T) {
	lim := Limits{MaxEntryBytes: 100, MaxKeyBytes: 16, MaxEntries: 5, MaxHistoryPageBytes: 250}
	tests := []struct {
		name     string
		limit    int
		contents []int // the content of each revision, -1 for none
	}{
		{"one revision", 1, []int{100}},
		{"a page at the byte bound", 10, []int{100, 100, 50, -1, -1, -1, -1, -1, -1, -1}},
		{"one revision past the byte bound", 10, []int{100}},
		{"without content", 10, []int{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1}},
	}
	for _, tt := range tests {
		page := HistoryResponse{Repo: worst(256), Key: worst(lim.MaxKeyBytes), NextCursor: "9223372036854775807:" + worst(lim.MaxKeyBytes)}
		content := false
		for _, n := range tt.contents {
			r := worstRevision(lim, max(n, 0))
			if n < 0 {
				r.Content = nil
			}
			content = content || n >= 0
			page.Revisions = append(page.Revisions, r)
		}
		got, bound := marshaledLen(t, page), lim.HistoryBodyBytes(tt.limit, content)
		if got > bound {
			t.Errorf("%s: page of %d bytes, over HistoryBodyBytes(%d, %v) = %d", tt.name, got, tt.limit, content, bound)
		}
	}
}

// TestFullBodyBytes: a full pull and a hash probe of a repo full of the
// largest entries fit their bounds.
func TestFullBodyBytes(t *testing.T) {
	lim := Limits{MaxEntryBytes: 100, MaxKeyBytes: 16, MaxEntries: 5}
	full := FullResponse{OrganizationID: worst(1000), Repo: worst(256), Version: math.MaxInt64, Checksum: EntryChecksum(""),
		Content: Content{Entries: map[string]string{}, EntryChecksums: map[string]string{}, DeletedEntries: map[string]int64{}}}
	hashes := HashesResponse{OrganizationID: full.OrganizationID, Repo: full.Repo, Version: full.Version, Checksum: full.Checksum,
		EntryChecksums: full.Content.EntryChecksums, DeletedEntries: map[string]int64{}}
	for i := range lim.MaxEntries {
		key := worst(lim.MaxKeyBytes-1) + string(rune('a'+i))
		full.Content.Entries[key] = worst(lim.MaxEntryBytes)
		full.Content.EntryChecksums[key] = EntryChecksum(worst(lim.MaxEntryBytes))
		full.Content.DeletedEntries[key+"x"] = math.MaxInt64
	}
	if got, bound := marshaledLen(t, full), lim.FullBodyBytes(); got > bound || bound-got > TombstoneBytes+SmallBodyBytes {
		t.Errorf("full pull of %d bytes, FullBodyBytes() = %d: want the pull within it, by no more than the tombstones' and fixed fields' allowance", got, bound)
	}
	if got, bound := marshaledLen(t, hashes), lim.HashesBodyBytes(); got > bound {
		t.Errorf("hash probe of %d bytes, over HashesBodyBytes() = %d", got, bound)
	}
}

// TestWaitBodyBytes: a change wait's answer with the changes since and
// the most values it may carry (WaitValueBytes of keys and values), as
// many short keys of empty values and as one key of the largest value,
// fits its bound.
func TestWaitBodyBytes(t *testing.T) {
	const keyBytes = 6
	lim := Limits{MaxEntryBytes: WaitValueBytes, MaxKeyBytes: keyBytes, MaxEntries: WaitValueBytes / keyBytes}
	manyKeys := map[string]string{}
	for i := range lim.MaxEntries {
		manyKeys[worst(1)+fmt.Sprintf("%05d", i)] = ""
	}
	for name, entries := range map[string]map[string]string{
		"many keys":     manyKeys,
		"largest value": {worst(1): worst(WaitValueBytes - 1)},
	} {
		sums := map[string]string{}
		for k := range entries {
			sums[k] = EntryChecksum("")
		}
		h := HashesResponse{OrganizationID: worst(1000), Repo: worst(256), Version: math.MaxInt64, Checksum: EntryChecksum(""),
			EntryChecksums: sums, DeletedEntries: map[string]int64{}, ChangedSince: EntryChecksum("x"), Entries: entries}
		if got, bound := marshaledLen(t, h), lim.WaitBodyBytes(); got > bound {
			t.Errorf("%s: change wait answer of %d bytes, over WaitBodyBytes() = %d", name, got, bound)
		}
	}
}
