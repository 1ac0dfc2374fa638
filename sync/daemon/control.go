package daemon

import (
	"context"
	"log/slog"
	"net"

	"github.com/teammemd/teammemd/sync/daemon/control"
)

// SocketName is the control socket's file name inside the runtime directory.
const SocketName = "teammemd.sock"

// ErrNotRunning means no daemon answers on the control socket.
var ErrNotRunning = control.ErrNotRunning

// Listen opens the control socket at path (see control.Listen): mode 0600
// in a directory of mode 0700; a stale socket is replaced, a live one is
// an error.
func Listen(path string) (net.Listener, error) { return control.Listen(path) }

// serveControl answers the control API on ln until ctx is done. A name
// in the status that is not valid UTF-8 goes out with its invalid bytes
// as \xNN (validStatus): JSON carries only UTF-8.
func serveControl(ctx context.Context, ln net.Listener, status func() Status, log *slog.Logger) error {
	return control.Serve(ctx, ln, func() any { return validStatus(status()) }, log)
}

// FetchStatus asks the daemon listening on the control socket at path for
// its status. An error wrapping ErrNotRunning means no daemon answers.
func FetchStatus(ctx context.Context, path string) (Status, error) {
	var s Status
	err := control.Fetch(ctx, path, &s)
	return s, err
}
