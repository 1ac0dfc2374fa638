//go:build race

package linearizetest

// raceEnabled: the race detector slows the SQLite store about tenfold.
const raceEnabled = true
