package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"
)

// sdNotify sends state (such as "READY=1" or "STOPPING=1") to the service
// manager on the datagram socket named by $NOTIFY_SOCKET, a path or an
// abstract socket ("@name"). Without the variable, as when not started by
// systemd, it does nothing.
func sdNotify(state string) error {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return nil
	}
	switch path[0] {
	case '/':
	case '@':
		path = "\x00" + path[1:]
	default:
		return errors.New("sd_notify: NOTIFY_SOCKET is neither a path nor an abstract socket")
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("sd_notify: %w", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("sd_notify: %w", err)
	}
	return nil
}

// startExtension is how much more time to start each EXTEND_TIMEOUT_USEC
// message asks the service manager for, and startExtensionEvery how often
// one is sent while the store opens.
const (
	startExtension      = 30 * time.Second
	startExtensionEvery = 10 * time.Second
)

// extendStart asks the service manager, every interval until the returned
// stop is called, for startExtension more time to start. Opening the store
// can migrate its schema, which may rewrite whole tables of a large
// database: without this, a unit's start timeout (90 s by default) would
// stop the server in the middle, the migration would roll back, and every
// restart would begin it again. Outside systemd the messages go nowhere.
// stop returns once no message is being sent.
func extendStart(interval time.Duration, log *slog.Logger) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(interval)
		defer t.Stop()
		msg := fmt.Sprintf("EXTEND_TIMEOUT_USEC=%d", startExtension.Microseconds())
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if err := sdNotify(msg); err != nil {
					log.Warn("notify systemd", "err", err)
				}
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}
