package api

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// ChecksumPrefix starts every entry and repo checksum.
const ChecksumPrefix = "sha256:"

// EmptyRepoChecksum is the checksum of a repo with no entries and no
// tombstones: the SHA-256 of the empty string.
const EmptyRepoChecksum = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// EntryChecksum returns "sha256:" + lowercase hex SHA-256 of the exact bytes
// of value, with no normalisation.
func EntryChecksum(value string) string {
	return EntryChecksumBytes([]byte(value))
}

// EntryChecksumBytes is EntryChecksum of value held as bytes, hashed where
// it lies: a caller that read a file hashes it without a copy.
func EntryChecksumBytes(value []byte) string {
	sum := sha256.Sum256(value)
	var out [len(ChecksumPrefix) + 2*sha256.Size]byte
	copy(out[:], ChecksumPrefix)
	hex.Encode(out[len(ChecksumPrefix):], sum[:])
	return string(out[:])
}

// RepoChecksum returns the repo checksum of PROTOCOL.md section 3: the SHA-256
// over all keys in byte order of "key NUL entryChecksum LF" for live entries
// and "key NUL deleted LF" for tombstones. A key present in both maps counts
// as live.
func RepoChecksum(entryChecksums map[string]string, tombstones map[string]int64) string {
	h := sha256.New()
	buf := make([]byte, 0, 256)
	for _, k := range repoKeys(entryChecksums, tombstones) {
		sum, live := entryChecksums[k]
		buf = AppendRepoLine(buf[:0], k, sum, live)
		h.Write(buf)
	}
	return ChecksumPrefix + hex.EncodeToString(h.Sum(nil))
}

// repoKeys returns the keys the repo checksum has a line for, in byte
// order: every live key, and every tombstone's that is not live.
func repoKeys(entryChecksums map[string]string, tombstones map[string]int64) []string {
	keys := make([]string, 0, len(entryChecksums)+len(tombstones))
	for k := range entryChecksums {
		keys = append(keys, k)
	}
	for k := range tombstones {
		if _, live := entryChecksums[k]; !live {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// AppendRepoLine appends one line of the repo checksum input of PROTOCOL.md
// section 3 to dst: "key NUL entryChecksum LF" for a live entry, "key NUL
// deleted LF" for a tombstone. Lines appended in byte order of their keys,
// one per key, and hashed with SHA-256 give RepoChecksum.
func AppendRepoLine(dst []byte, key, entryChecksum string, live bool) []byte {
	dst = append(dst, key...)
	dst = append(dst, 0)
	if live {
		dst = append(dst, entryChecksum...)
	} else {
		dst = append(dst, "deleted"...)
	}
	return append(dst, '\n')
}

// ETag returns the strong ETag header value for a repo checksum.
func ETag(checksum string) string { return `"` + checksum + `"` }

// StripETag returns an If-Match or If-None-Match value with surrounding
// whitespace and quotes removed, so it compares equal to a checksum.
func StripETag(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	return v
}
