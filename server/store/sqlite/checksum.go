package sqlite

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/teammemd/teammemd/server/api"
)

// sumMarkEvery is how many lines of checksum input lie between two saved
// hash states.
const sumMarkEvery = 32

// sumMark is the SHA-256 state after hashing the checksum input of a
// state's first line lines. A write that changes nothing before line
// resumes from it instead of hashing the repo from its first key.
type sumMark struct {
	line  int
	state []byte // from the digest's MarshalBinary
}

// checksummer computes repo checksums for the group commits, reusing
// one buffer for the checksum input.
type checksummer struct {
	buf []byte
}

// sum sets next's checksum and marks. prev is the state next was built
// from; next's lines before unchanged are prev's.
func (c *checksummer) sum(next, prev *repoState, unchanged int) error {
	h, marks, start, err := resume(prev.marks, unchanged)
	if err != nil {
		return err
	}
	for i := start; i < len(next.lines); i += sumMarkEvery {
		end := min(i+sumMarkEvery, len(next.lines))
		c.buf = c.buf[:0]
		for _, l := range next.lines[i:end] {
			c.buf = api.AppendRepoLine(c.buf, l.key, l.sum, l.live())
		}
		h.Write(c.buf)
		if end-i < sumMarkEvery {
			break
		}
		state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			return fmt.Errorf("save checksum state: %w", err)
		}
		marks = append(marks, sumMark{line: end, state: state})
	}
	next.checksum = api.ChecksumPrefix + hex.EncodeToString(h.Sum(nil))
	next.marks = marks
	return nil
}

// resume returns a digest at the last of marks at or before line
// unchanged, the marks up to it and the line to hash from.
func resume(marks []sumMark, unchanged int) (hash.Hash, []sumMark, int, error) {
	h := sha256.New()
	n := min(len(marks), unchanged/sumMarkEvery)
	if n == 0 {
		return h, nil, 0, nil
	}
	last := marks[n-1]
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(last.state); err != nil {
		return nil, nil, 0, fmt.Errorf("restore checksum state: %w", err)
	}
	return h, marks[:n:n], last.line, nil
}
