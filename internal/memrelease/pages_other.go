//go:build !linux

package memrelease

// dropExecutablePages does nothing where the executable's mappings cannot
// be read.
func dropExecutablePages() {}
