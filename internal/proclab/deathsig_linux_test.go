package proclab

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv marks the test binary run as the parent of a lab's process.
const helperEnv = "PROCLAB_PARENT_HELPER"

// TestLabParentHelper is the parent TestProcessEndsWithItsParent kills:
// it starts a lab process, prints its pid and waits to be killed.
func TestLabParentHelper(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("the parent of TestProcessEndsWithItsParent")
	}
	lab, err := New(t.TempDir(), "/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	p, err := lab.Start("child", nil, "-c", "exec sleep 60")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("child %d\n", p.Pid())
	time.Sleep(time.Minute)
}

// A lab's process ends when the process that started it is killed,
// whose cleanup never runs.
func TestProcessEndsWithItsParent(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^TestLabParentHelper$", "-test.v")
	parent.Env = append(os.Environ(), helperEnv+"=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer parent.Wait()
	defer parent.Process.Kill()
	pid := 0
	sc := bufio.NewScanner(out)
	for pid == 0 && sc.Scan() {
		if f, ok := strings.CutPrefix(sc.Text(), "child "); ok {
			pid, _ = strconv.Atoi(f)
		}
	}
	if pid == 0 {
		t.Fatalf("the parent printed no child pid (%v)", sc.Err())
	}
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for i := 0; alive(pid); i++ {
		if i == 500 {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the lab's process %d still runs 10s after its parent was killed", pid)
		}
		if err := Pause(t.Context(), 20*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
}

// alive reports whether pid is a process that has not exited: neither
// gone nor a zombie waiting to be reaped.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
