package fsio

import "time"

// The racy windows: how long after a file's modification time a stat of
// it may still miss a later write of the same size, because that write
// could get the same modification time. A scan that hashes a file sooner
// than that after its mtime hashes it again next time.
const (
	// SlowRacyWindow is for file systems whose timestamps are coarse or
	// come from another machine's clock (FAT's are 2 s; a network file
	// system's server sets them), and for any file system not known to
	// be one of the others.
	SlowRacyWindow = 2 * time.Second
	// FineRacyWindow is for the local file systems whose timestamps
	// have nanosecond fields set from the kernel's clock, which moves in
	// ticks of at most 10 ms; the window is ten such ticks.
	FineRacyWindow = 100 * time.Millisecond
)
