//go:build !race

package linearizetest

const raceEnabled = false
