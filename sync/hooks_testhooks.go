//go:build testhooks

package memsync

import (
	"path/filepath"

	"github.com/teammemd/teammemd/sync/internal/fault"
	"github.com/teammemd/teammemd/sync/internal/hashcount"
)

// readFault returns the read fault a test set for the path of key in the
// team directory dir, or nil.
func readFault(dir, key string) error {
	return fault.Read(filepath.Join(dir, filepath.FromSlash(key)))
}

// countHash hands a value about to be hashed to a test's counter.
func countHash(value []byte) { hashcount.Note(value) }

// countHashString is countHash of a value held as a string.
func countHashString(value string) { hashcount.Note([]byte(value)) }
