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
