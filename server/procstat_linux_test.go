package server_test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processCPU returns the CPU time, user and system, the process has used.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// resetPeakMemory makes VmHWM start again from the current resident set.
func resetPeakMemory() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// memoryStatus returns a field of /proc/self/status in bytes: VmRSS, the
// resident set now, or VmHWM, its peak.
func memoryStatus(field string) (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), field+":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		return kb << 10, err == nil
	}
	return 0, false
}
