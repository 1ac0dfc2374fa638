//go:build !unix

package fsio

import (
	"errors"
	"os"
)

// TryLock fails on systems without flock: syncing without a lock could let
// two processes corrupt a repo's state, so it is refused.
func TryLock(*os.File) (bool, error) {
	return false, errors.New("repo locking needs flock, which this system lacks")
}
