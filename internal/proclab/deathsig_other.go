//go:build !linux

package proclab

import "os/exec"

// endWithLab does nothing: only Linux has the kernel signal a process
// whose parent ended; elsewhere Close and Stop end a lab's processes.
func endWithLab(*exec.Cmd) {}
