// Package entryhash lets tests see every entry checksum the program
// computes, to prove that a note on its way through the daemon is hashed
// only as often as it must be. Nothing but tests sets the hook; unset, it
// costs one atomic load per checksum.
package entryhash

import "sync/atomic"

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
