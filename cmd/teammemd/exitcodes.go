package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/credential"
)

// The exit statuses of teammemd, one table for the code, the help and the
// reference. Scripts rely on them: keep their meanings.
const (
	exitOK          = 0
	exitFailure     = 1  // a failure, or findings: lint, scan and doctor found a problem
	exitUsage       = 2  // bad command line: unknown command or flag, wrong arguments
	exitDaemonDown  = 3  // status, service status: no daemon answers, or the service is not running
	exitAuth        = 4  // the server refused the token or login, or the token has no grant for the repo
	exitUnreachable = 5  // the server could not be reached
	exitConfig      = 78 // the config is unreadable or invalid, or run has nothing to sync (EX_CONFIG)
)

// exitCodes describes each exit status, in order, for the help and the
// generated reference.
var exitCodes = []struct {
	code    int
	meaning string
}{
	{exitOK, "success"},
	{exitFailure, "failure, or findings: lint and scan found something, a doctor check failed"},
	{exitUsage, "usage error: unknown command or flag, wrong arguments (scan: also an error while scanning)"},
	{exitDaemonDown, "status, service status: no daemon answers, or the service is not running"},
	{exitAuth, "the server refused the token or login, or the token has no grant for the repo"},
	{exitUnreachable, "the server could not be reached"},
	{exitConfig, "the config file is unreadable or invalid (serve: any setting, from the file, the environment or a flag), or run has nothing to sync (EX_CONFIG; the systemd units do not restart on it)"},
}

// exitCodeTable formats exitCodes as an indented two-column table.
func exitCodeTable() string {
	var b strings.Builder
	for _, c := range exitCodes {
		fmt.Fprintf(&b, "    %-3d %s\n", c.code, c.meaning)
	}
	return b.String()
}

// usageError marks bad command-line input (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// configError marks a config file that cannot be read or used.
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }

// exitError carries an explicit exit status, such as 1 for "secrets found".
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e exitError) Unwrap() error { return e.err }

// exitCode maps the result of run to the process exit status in one place.
func exitCode(ctx context.Context, err error, stderr io.Writer) int {
	var ee exitError
	var ue usageError
	code := errorCode(ctx, err)
	switch {
	case code == exitOK:
	case errors.As(err, &ee):
		if ee.err != nil {
			printError(stderr, ee.err)
		}
	case errors.As(err, &ue):
		printLines(stderr, err)
	default:
		printError(stderr, err)
	}
	return code
}

// errorCode is the exit status of err, without printing anything.
func errorCode(ctx context.Context, err error) int {
	var ee exitError
	var ue usageError
	var ce configError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return exitOK // stopped by a signal: a clean exit
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &ce):
		return exitConfig
	case errors.Is(err, credential.ErrMalformed):
		return exitAuth // a token no server accepts, found before sending it
	}
	switch memsync.Classify(err) {
	case memsync.TokenRejected, memsync.NoAccess, memsync.ReadOnly:
		return exitAuth
	case memsync.Unreachable:
		if fromServer(err) {
			return exitUnreachable
		}
	}
	return exitFailure
}

// fromServer tells an error of a request to the server (an HTTP request's,
// or the server's own answer) from a local socket's, such as the OS
// keyring's, which memsync.Classify also calls unreachable.
func fromServer(err error) bool {
	var ue *url.Error
	var oe *net.OpError
	return errors.As(err, &ue) || !errors.As(err, &oe)
}

// printError prints err escaped for the terminal (it may carry a server's
// message or a file name), line by line: an error of several (one a repo,
// as migrate-store's) gets a line each, the ones after the first
// indented.
func printError(w io.Writer, err error) {
	for i, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		if i == 0 {
			fmt.Fprintln(w, "teammemd:", api.Printable(line))
			continue
		}
		fmt.Fprintln(w, "  "+api.Printable(line))
	}
}

// printLines prints a usage error line by line, each escaped: the command
// line's suggestions ("Did you mean this?") follow its first line.
func printLines(w io.Writer, err error) {
	for i, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		if i == 0 {
			fmt.Fprintln(w, "teammemd:", api.Printable(line))
			continue
		}
		fmt.Fprintln(w, api.Printable(line))
	}
}
