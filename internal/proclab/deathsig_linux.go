package proclab

import (
	"os/exec"
	"syscall"
)

// endWithLab has the kernel send cmd's process SIGTERM when the process
// that started it ends, however it ends: a test binary killed mid-run
// (a timeout, a SIGKILL) leaves no server or daemon of its lab running,
// to hold ports and files and to load the machine the next run measures.
func endWithLab(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
