package store

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/teammemd/teammemd/server/api"
)

// SumMarkEvery is how many lines of checksum input lie between two saved
// hash states.
const SumMarkEvery = 32

// sumMark is the SHA-256 state after hashing the checksum input of a
// state's first line lines.
type sumMark struct {
	line  int
	state []byte // from the digest's MarshalBinary
}

// SumMarks are the saved hash states of a repo state's checksum input, one
// every SumMarkEvery lines. A write that changes nothing before a mark
// resumes hashing from it instead of from the repo's first key. The zero
// value has none. Marks are never modified once made, so states may share
// them.
type SumMarks struct {
	marks []sumMark
}

// Len is how many marks there are.
func (m SumMarks) Len() int { return len(m.marks) }

// RepoLines are the lines of a repo checksum's input (PROTOCOL.md section
// 3), one a key, live or tombstoned, in byte order of the keys.
type RepoLines interface {
	Len() int
	// Line returns the i-th key, its entry checksum and whether it is live.
	Line(i int) (key, sum string, live bool)
}

// SumLines returns the repo checksum of lines and their marks. prev are the
// marks of a state whose first unchanged lines are those of lines; the
// hash resumes from the last of them at or before that line.
func SumLines(lines RepoLines, prev SumMarks, unchanged int) (string, SumMarks, error) {
	h, marks, start, err := resume(prev.marks, unchanged)
	if err != nil {
		return "", SumMarks{}, err
	}
	n := lines.Len()
	buf := make([]byte, 0, 4096)
	for i := start; i < n; i += SumMarkEvery {
		end := min(i+SumMarkEvery, n)
		buf = buf[:0]
		for j := i; j < end; j++ {
			key, sum, live := lines.Line(j)
			buf = api.AppendRepoLine(buf, key, sum, live)
		}
		h.Write(buf)
		if end-i < SumMarkEvery {
			break
		}
		state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			return "", SumMarks{}, fmt.Errorf("save checksum state: %w", err)
		}
		marks = append(marks, sumMark{line: end, state: state})
	}
	return api.ChecksumPrefix + hex.EncodeToString(h.Sum(nil)), SumMarks{marks: marks}, nil
}

// resume returns a digest at the last of marks at or before line
// unchanged, the marks up to it (capped, so appending copies) and the line
// to hash from.
func resume(marks []sumMark, unchanged int) (hash.Hash, []sumMark, int, error) {
	h := sha256.New()
	n := min(len(marks), unchanged/SumMarkEvery)
	if n == 0 {
		return h, nil, 0, nil
	}
	last := marks[n-1]
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(last.state); err != nil {
		return nil, nil, 0, fmt.Errorf("restore checksum state: %w", err)
	}
	return h, marks[:n:n], last.line, nil
}
