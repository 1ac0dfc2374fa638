package main

import (
	"context"
	"time"

	"github.com/teammemd/teammemd/sync/daemon"
)

// runningDaemon is the status of the daemon that answers on this user's
// control socket, and whether one answered within a few seconds.
func runningDaemon(ctx context.Context) (daemon.Status, bool) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := daemon.FetchStatus(ctx, daemon.SocketPath(runtimeDir()))
	return st, err == nil
}
