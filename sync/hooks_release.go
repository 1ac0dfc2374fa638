//go:build !testhooks

package memsync

// readFault is nil: only a build with the tag testhooks injects read
// faults.
func readFault(string, string) error { return nil }

// countHash does nothing: only a build with the tag testhooks counts the
// engine's checksums.
func countHash([]byte) {}

// countHashString does nothing, as countHash.
func countHashString(string) {}

// beforeReplace does nothing: only a build with the tag testhooks lets a
// test act between a pull's judgement of a file and its replacement.
func beforeReplace(string) {}

// afterReplace does nothing, as beforeReplace.
func afterReplace(string) {}

// conflictWriteFault is nil: only a build with the tag testhooks fails a
// conflict copy's write on purpose.
func conflictWriteFault() func() error { return nil }
