package proclab

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// stopTimeout is how long Stop waits after SIGTERM before it kills.
const stopTimeout = 15 * time.Second

// Process is one started process whose output goes to a log file.
type Process struct {
	name   string // "teammemd <command>", for messages
	cmd    *exec.Cmd
	log    string
	done   chan struct{}
	err    error       // how it exited, once done is closed
	killed atomic.Bool // by Kill: its exit status is expected
}

// startProcess starts bin with args and env, appending stdout and stderr
// to logPath.
func startProcess(logPath, bin string, env []string, args ...string) (*Process, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	endWithLab(cmd)
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	p := &Process{name: "teammemd " + args[0], cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer f.Close()
		p.err = cmd.Wait()
	}()
	return p, nil
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop asks the process to exit (SIGTERM), kills it after 15 s, and waits.
// It returns how the process ended when that was not clean: an exit status
// other than 0, or the kill; a process Kill ended is no error.
func (p *Process) Stop() error {
	if !p.Exited() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM) // it may have exited meanwhile
		select {
		case <-p.done:
		case <-time.After(stopTimeout):
			_ = p.cmd.Process.Kill()
			<-p.done
			return fmt.Errorf("%s did not stop within %s; killed", p.name, stopTimeout)
		}
	}
	if p.err != nil && !p.killed.Load() {
		return fmt.Errorf("%s: %w", p.name, p.err)
	}
	return nil
}

// Kill sends SIGKILL, which the process cannot catch or delay, and waits
// until it is gone.
func (p *Process) Kill() error {
	p.killed.Store(true)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("kill pid %d: %w", p.Pid(), err)
	}
	<-p.done
	return nil
}

// LogTail returns the last 2,000 bytes of the log, for error messages.
func (p *Process) LogTail() string {
	data, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}
