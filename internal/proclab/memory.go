package proclab

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// MemoryKB returns a field of the process's /proc/<pid>/status in KiB:
// VmRSS, its resident set now, or VmHWM, the peak of it (Linux only).
func (p *Process) MemoryKB(field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid()))
	if err != nil {
		return 0, fmt.Errorf("read status: %w", err)
	}
	return parseStatusKB(string(data), field)
}

// ResetPeakMemory makes VmHWM start again from the resident set now
// (Linux only).
func (p *Process) ResetPeakMemory() error {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p.Pid()), []byte("5"), 0); err != nil {
		return fmt.Errorf("reset peak memory: %w", err)
	}
	return nil
}

// parseStatusKB finds "<field>:   <n> kB" in a status file.
func parseStatusKB(status, field string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		rest, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse %s: %w", field, err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("no %s in status", field)
}
