// Package control carries a teammemd daemon's control API over a local
// Unix socket: the daemon serves its status there, and "teammemd status"
// reads it. Only the socket's owner can connect.
package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// ErrNotRunning means no daemon answers on the control socket.
var ErrNotRunning = errors.New("daemon not running")

// maxStatusBytes bounds a status answer.
const maxStatusBytes = 64 << 20

// Listen opens the control socket at path: its directory, when missing,
// is created with mode 0700 (an existing one keeps its mode: it may be
// shared), and the socket gets mode 0600. A stale socket left by a daemon
// that died is replaced; a live one is an error.
func Listen(path string) (net.Listener, error) {
	if err := makeDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("another teammemd daemon is running (control socket %s)", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove stale control socket: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on control socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restrict control socket: %w", err)
	}
	return ln, nil
}

// makeDir creates dir with mode 0700 when it does not exist.
func makeDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create control directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("restrict control directory: %w", err)
	}
	return nil
}

// Serve answers GET /status with status() as JSON on ln until ctx is done.
func Serve(ctx context.Context, ln net.Listener, status func() any, log *slog.Logger) error {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(status()); err != nil {
			log.Warn("write status failed", "err", err)
		}
	})
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       30 * time.Second,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("control server: %w", err)
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		srv.Close()
	}
	<-errc
	return nil
}

// Fetch asks the daemon listening on the control socket at path for its
// status and decodes it into out. An error wrapping ErrNotRunning means no
// daemon answers.
func Fetch(ctx context.Context, path string, out any) error {
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://teammemd/status", nil)
	if err != nil {
		return fmt.Errorf("build status request: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotRunning, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status request: %s", resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxStatusBytes)).Decode(out); err != nil {
		return fmt.Errorf("decode status: %w", err)
	}
	return nil
}
