//go:build !testhooks

package daemon

// askPullSeen does nothing: only a build with the tag testhooks lets a
// test see the change wait ask its worker to pull.
func askPullSeen(string) {}

// refreshSeen does nothing: only a build with the tag testhooks lets a
// test see a provenance refresh end.
func refreshSeen(string) {}
