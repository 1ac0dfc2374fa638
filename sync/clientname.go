package memsync

import (
	"os"
	"runtime"
	"strings"

	"github.com/teammemd/teammemd/server/api"
)

// maxMachineBytes bounds the machine name a client sends; the server
// bounds what it records on its own.
const maxMachineBytes = 64

// userAgent is the User-Agent header for product: the product and the
// platform this client runs on.
func userAgent(product string) string {
	return product + " (" + runtime.GOOS + "/" + runtime.GOARCH + ")"
}

// hostMachine is the machine name a client sends by default: this host's
// short name (see shortHost); empty when the system names none.
func hostMachine() string {
	name, err := os.Hostname()
	if err != nil {
		return ""
	}
	return shortHost(name)
}

// shortHost is a host name up to its first dot, so a domain does not
// travel with it, fit for the header.
func shortHost(name string) string {
	name, _, _ = strings.Cut(name, ".")
	return machineName(name)
}

// machineName makes name fit for the Teammemd-Client header: printable
// text, without the control characters a header cannot carry, bounded.
func machineName(name string) string {
	return api.CleanClientText(name, maxMachineBytes)
}
