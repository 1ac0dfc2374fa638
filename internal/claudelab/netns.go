package claudelab

import (
	"fmt"
	"net"
	"os"
)

// IsolatedEnv is set to 1 in the environment of a command Isolate set up.
const IsolatedEnv = "TEAMMEMD_CLAUDELAB_ISOLATED"

// Isolated reports whether this process runs in the network namespace a
// parent set up with Isolate.
func Isolated() bool { return os.Getenv(IsolatedEnv) == "1" }

// OnlyLoopback checks that every network interface the process sees is a
// loopback interface, and that one is up.
func OnlyLoopback() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("list network interfaces: %w", err)
	}
	up := false
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback == 0 {
			return fmt.Errorf("network interface %s is not loopback", i.Name)
		}
		up = up || i.Flags&net.FlagUp != 0
	}
	if !up {
		return fmt.Errorf("no loopback interface is up among %d interfaces", len(ifs))
	}
	return nil
}
