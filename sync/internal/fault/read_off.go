//go:build !testhooks

package fault

// Enabled reports whether the engine asks Read before it reads.
const Enabled = false

// DenyRead does nothing without the build tag testhooks: the engine asks
// for no read fault then, and only a file's mode keeps it from reading.
func DenyRead(paths ...string) (restore func()) { return func() {} }
