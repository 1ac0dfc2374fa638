package main

import (
	"errors"
	"fmt"
	"net"
	"os"
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
