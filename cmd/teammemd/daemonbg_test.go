package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
)

// bgDaemon is a teammemd run started in the test's process on a config
// file, logging JSON lines to logs, its control socket at sock.
type bgDaemon struct {
	sock   string
	logs   *lineWriter
	done   chan error
	cancel context.CancelFunc
}

// runInBackground runs the daemon on cfg in the background, with a state
// directory and a socket of its own, and waits for its log line msg. It
// stops with the test if stop has not stopped it before.
func runInBackground(t *testing.T, cfg, msg string) *bgDaemon {
	t.Helper()
	d := &bgDaemon{sock: filepath.Join(t.TempDir(), "ctl.sock"), logs: &lineWriter{lines: make(chan string, 100)}, done: make(chan error, 1)}
	args := []string{"--config", cfg, "--socket", d.sock, "--state-dir", t.TempDir(), "--log-format", "json"}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	t.Cleanup(cancel)
	go func() { d.done <- runDaemon(ctx, args, &bytes.Buffer{}, d.logs) }()
	awaitLog(t, d.logs.lines, d.done, msg)
	return d
}

// stop stops the daemon and checks that it ended cleanly.
func (d *bgDaemon) stop(t *testing.T) {
	t.Helper()
	d.cancel()
	if err := <-d.done; err != nil {
		t.Errorf("runDaemon() = %v, want nil", err)
	}
}
