package servertest

import (
	"context"
	"strings"
)

// MarkerScanner is a server-side secret scanner for tests: it finds a
// secret (rule "marker") in every value that holds the marker, so that a
// client whose own scanner lets the value through sees the server refuse
// it with 422.
type MarkerScanner string

// ScanEntries implements server.EntryScanner.
func (m MarkerScanner) ScanEntries(_ context.Context, entries map[string]string) (map[string][]string, error) {
	hits := map[string][]string{}
	for k, v := range entries {
		if strings.Contains(v, string(m)) {
			hits[k] = []string{"marker"}
		}
	}
	return hits, nil
}

// ScanKeys implements server.EntryScanner; no name holds the marker's
// secret.
func (MarkerScanner) ScanKeys(context.Context, []string) (map[string][]string, error) {
	return nil, nil
}
