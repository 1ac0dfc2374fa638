//go:build !unix

package login

import "os"

// lockFile does nothing where there is no flock: two processes refreshing
// the same login at once may then have to log in again.
func lockFile(*os.File) error { return nil }
