package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// Each kind of error maps to its one exit status.
func TestErrorCodes(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	refused := &url.Error{Op: "Get", URL: "http://127.0.0.1:1/v1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want int
	}{
		{"success", context.Background(), nil, exitOK},
		{"failure", context.Background(), errors.New("disk full"), exitFailure},
		{"findings", context.Background(), exitError{code: exitFailure, err: errors.New("2 finding(s)")}, exitFailure},
		{"usage", context.Background(), usageError{errors.New("unknown flag: --frob")}, exitUsage},
		{"wrapped usage", context.Background(), fmt.Errorf("sync: %w", usageError{errors.New("bad")}), exitUsage},
		{"daemon down", context.Background(), exitError{code: exitDaemonDown}, exitDaemonDown},
		{"token refused", context.Background(), fmt.Errorf("pull acme/app: %w", &api.Error{Status: 401, Code: api.CodeUnauthenticated}), exitAuth},
		{"no grant", context.Background(), fmt.Errorf("pull acme/app: %w", &api.Error{Status: 403}), exitAuth},
		{"unreachable", context.Background(), fmt.Errorf("pull acme/app: %w", refused), exitUnreachable},
		{"local socket", context.Background(), fmt.Errorf("OS keyring: %w", &net.OpError{Op: "dial", Net: "unix", Err: errors.New("no such file")}), exitFailure},
		{"config", context.Background(), configError{errors.New("config x.toml: unknown key")}, exitConfig},
		{"not configured", context.Background(), notConfigured(errors.New("nothing to sync")), exitConfig},
		{"stopped by a signal", cancelled, fmt.Errorf("run: %w", context.Canceled), exitOK},
		{"cancelled otherwise", context.Background(), context.Canceled, exitFailure},
	}
	for _, tt := range tests {
		if got := exitCode(tt.ctx, tt.err, io.Discard); got != tt.want {
			t.Errorf("exitCode(%s: %v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
}

// The root command's help prints every exit status of the table.
func TestHelpListsExitCodes(t *testing.T) {
	stdout, _, code := runCLI(t, "--help")
	if code != 0 {
		t.Fatalf("teammemd --help: exit %d", code)
	}
	for _, c := range exitCodes {
		line := "  " + strconv.Itoa(c.code) + " "
		if !strings.Contains(stdout, line) || !strings.Contains(stdout, c.meaning) {
			t.Errorf("teammemd --help lacks exit status %d (%s):\n%s", c.code, c.meaning, stdout)
		}
	}
}

// An error of several, such as migrate-store's one a repo, prints a line
// each, the ones after the first indented, every line escaped: never a
// literal \n between them.
func TestPrintErrorLines(t *testing.T) {
	var b strings.Builder
	printError(&b, errors.Join(errors.New("repo acme/app was written in the destination"), errors.New("repo acme/rev \x1b]0;x")))
	want := "teammemd: repo acme/app was written in the destination\n  repo acme/rev \\x1b]0;x\n"
	if b.String() != want {
		t.Errorf("printError = %q, want %q", b.String(), want)
	}
}
