//go:build unix

package checkup

import "golang.org/x/sys/unix"

// writable reports why this user cannot create files in dir, nil when it
// can.
func writable(dir string) error { return unix.Access(dir, unix.W_OK|unix.X_OK) }
