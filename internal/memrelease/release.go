// Package memrelease hands the memory a process no longer uses back to the
// system after a burst of work: the heap the Go runtime keeps for reuse
// and, on Linux, the pages of the executable's code and read-only data
// that start-up and the burst touched. A long-running process that works
// in bursts, such as the sync daemon, calls Release once a burst is over.
package memrelease

import "runtime/debug"

// Release runs a garbage collection and returns the freed heap to the
// system (debug.FreeOSMemory), then drops the executable's read-only
// file-backed pages from the process's resident set (Linux only).
//
// Those pages are unmodified copies of the executable file: dropping them
// discards nothing, they stay in the page cache, and the code the process
// runs next maps them again with a minor fault. Without the drop, every
// page the package initializers, the start-up and the last burst ran or
// read stays resident in the process until memory runs short.
func Release() {
	debug.FreeOSMemory()
	dropExecutablePages()
}
