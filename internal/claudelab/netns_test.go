package claudelab

import (
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// helperEnv makes the test binary run TestIsolatedHelper's checks.
const helperEnv = "TEAMMEMD_CLAUDELAB_HELPER"

// A process Isolate started sees only loopback, brings it up, listens on
// it, and reaches nothing else.
func TestIsolate(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("a network namespace of its own needs Linux and root: run as root on Linux, as .ci/run does in CI")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestIsolatedHelper$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	if err := Isolate(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestIsolatedHelper") {
		t.Fatalf("the isolated helper = %v, want it to pass:\n%s", err, out)
	}
}

func TestIsolatedHelper(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("a helper: runs only in the process TestIsolate starts, with " + helperEnv + "=1")
	}
	if !Isolated() {
		t.Fatalf("Isolated() = false in the isolated process, want true")
	}
	if err := OnlyLoopback(); err == nil {
		t.Errorf("OnlyLoopback() before LoopbackUp = nil, want an error: lo is down")
	}
	if err := LoopbackUp(); err != nil {
		t.Fatal(err)
	}
	if err := OnlyLoopback(); err != nil {
		t.Errorf("OnlyLoopback() after LoopbackUp = %v, want nil", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Errorf("dial loopback in the namespace: %v", err)
	} else {
		c.Close()
	}
	if c, err := net.Dial("udp", "192.0.2.1:53"); err == nil {
		c.Close()
		t.Errorf("the namespace has a route to 192.0.2.1, want none")
	}
}
