package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// contextSwitches is the number of times the threads of process pid have
// left a CPU, voluntarily (to wait) or not, as Linux counts them in each
// thread's /proc status; a thread that ended takes its count with it.
// Elsewhere it reports an error.
func contextSwitches(pid int) (int64, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("context switches of process %d: no /proc task status", pid)
	}
	var total int64
	for _, path := range tasks {
		n, err := taskSwitches(path)
		if err != nil {
			if os.IsNotExist(err) {
				continue // the thread ended since the listing
			}
			return 0, fmt.Errorf("context switches of process %d: %w", pid, err)
		}
		total += n
	}
	return total, nil
}

// taskSwitches sums the two context switch counts of one status file.
func taskSwitches(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var total int64
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, value, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok || !bytes.HasSuffix(name, []byte("ctxt_switches")) {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", path, err)
		}
		total += n
	}
	return total, nil
}
