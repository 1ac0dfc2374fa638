//go:build testhooks

package daemon

// testHookAskPull, when a test sets it, runs as the change wait asks the
// worker to pull, with the repo's team directory.
var testHookAskPull func(dir string)

// askPullSeen runs testHookAskPull, if set.
func askPullSeen(dir string) {
	if f := testHookAskPull; f != nil {
		f(dir)
	}
}

// testHookRefreshed, when a test sets it, runs as the worker's provenance
// refresh ends, with the repo's team directory.
var testHookRefreshed func(dir string)

// refreshSeen runs testHookRefreshed, if set.
func refreshSeen(dir string) {
	if f := testHookRefreshed; f != nil {
		f(dir)
	}
}
