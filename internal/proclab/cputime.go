package proclab

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of utime and stime in /proc/<pid>/stat: USER_HZ, 100
// on every Linux architecture.
const userHZ = 100

// CPUTime returns the CPU time, user and system, process pid has used so
// far, from /proc/<pid>/stat (Linux only), in steps of 10 ms.
func CPUTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read stat: %w", err)
	}
	ticks, err := parseStatTicks(string(data))
	return time.Duration(ticks) * time.Second / userHZ, err
}

// parseStatTicks reads fields 14 (utime) and 15 (stime) of a stat line. The
// command name, field 2, is in parentheses and may hold spaces.
func parseStatTicks(line string) (int64, error) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return 0, fmt.Errorf("stat line without a command name")
	}
	fields := strings.Fields(line[end+1:])
	// fields[0] is field 3 (state): utime is field 14, stime field 15.
	if len(fields) < 13 {
		return 0, fmt.Errorf("stat line has %d fields after the command name, want at least 13", len(fields))
	}
	var total int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse stat cpu time: %w", err)
		}
		total += n
	}
	return total, nil
}
