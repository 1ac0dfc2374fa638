// Package entryhash lets tests see every entry checksum the program
// computes, to prove that a note on its way through the daemon is hashed
// only as often as it must be. Nothing but tests sets the hook; unset, it
// costs one atomic load per checksum.
package entryhash

import (
	"runtime"
	"strings"
	"sync/atomic"
)

var hook atomic.Pointer[func(value string)]

// Watch has f called with the value of every entry checksum computed
// until restore is called. f runs on the goroutine that computes it.
func Watch(f func(value string)) (restore func()) {
	hook.Store(&f)
	return func() { hook.Store(nil) }
}

// Note hands value to the hook, if one is set.
func Note(value string) {
	if f := hook.Load(); f != nil {
		(*f)(value)
	}
}

// CallerHas reports, from within a Watch hook, whether the entry checksum
// being computed was asked for by a function whose full name starts with
// prefix (for example "github.com/teammemd/teammemd/sync." for package
// memsync alone), so a test can leave out the server's checksums in the
// same process.
func CallerHas(prefix string) bool {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, "/server/api.EntryChecksum") {
			f, _ = frames.Next()
			return strings.HasPrefix(f.Function, prefix)
		}
		if !more {
			return false
		}
	}
}
