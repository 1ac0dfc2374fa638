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

// Seams a test sets to act at a moment that a real user or a full disk
// would only hit by chance. Each is nil until a test sets it.
var (
	// testHookBeforeReplace runs after a pull has judged key's local file
	// and before it replaces or deletes it.
	testHookBeforeReplace func(key string)
	// testHookAfterReplace runs once a pull has put key's new content in
	// place, before it looks at what it wrote.
	testHookAfterReplace func(key string)
	// testHookConflictWrite runs once a conflict copy's file is created,
	// before its data is written; an error it returns is taken as the
	// write's own (a full disk, say).
	testHookConflictWrite func() error
)

// beforeReplace runs testHookBeforeReplace, if set.
func beforeReplace(key string) {
	if f := testHookBeforeReplace; f != nil {
		f(key)
	}
}

// afterReplace runs testHookAfterReplace, if set.
func afterReplace(key string) {
	if f := testHookAfterReplace; f != nil {
		f(key)
	}
}

// conflictWriteFault is the fault a test set for conflict copies' writes.
func conflictWriteFault() func() error { return testHookConflictWrite }
