package server

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// NotifySystemd sends state (such as "READY=1" or "STOPPING=1") to the
// service manager through the datagram socket named by $NOTIFY_SOCKET. It
// does nothing when the variable is unset, as when not run by systemd.
func NotifySystemd(state string) error {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return nil
	}
	if path[0] != '/' && path[0] != '@' {
		return errors.New("sd_notify: NOTIFY_SOCKET is neither a path nor an abstract socket")
	}
	if path[0] == '@' {
		path = "\x00" + path[1:] // abstract namespace
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("sd_notify: dial: %w", err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("sd_notify: write: %w", err)
	}
	return nil
}
