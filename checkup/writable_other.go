//go:build !unix

package checkup

// writable reports why this user cannot create files in dir; where there
// is no access(2), the first sync tells.
func writable(string) error { return nil }
