//go:build !linux

package server_test

import "time"

// processCPU is not measured on this system.
func processCPU() (time.Duration, bool) { return 0, false }

// memoryStatus is not measured on this system.
func memoryStatus(string) (int64, bool) { return 0, false }

// resetPeakMemory is not possible on this system.
func resetPeakMemory() bool { return false }
