// Command teammemd keeps a team's shared AI-agent memory the same on every
// teammate's machine: "teammemd serve" runs the team memory server, "teammemd
// run" the sync daemon, and the other commands operate both by hand.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"syscall"

	"github.com/teammemd/teammemd/server/api"
)

// command is one subcommand: it parses its own flags from args.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists every subcommand. Each lives in its own file.
var commands = map[string]command{
	"version":       {"print the version", runVersion},
	"demo":          {"show a note travel between two teammates and a secret stopped, on this machine", runDemo},
	"doctor":        {"check the config, token, server, repos and this machine, with a fix for each problem", runDoctor},
	"run":           {"run the sync daemon for one repo or every configured repo", runDaemon},
	"status":        {"show what the running sync daemon is doing", runStatus},
	"serve":         {"run the team memory server", runServe},
	"token":         {"create, list and revoke the server's API tokens", runToken},
	"admin":         {"list an entry's revisions, purge their content from the server, list purges, audit who changed what", runAdmin},
	"migrate-store": {"copy the server's SQLite database into PostgreSQL and verify it", runMigrateStore},
	"sync":          {"pull then push one repo's team memory once", runSync},
	"review":        {"list, show, approve or reject the proposals of a repo under review", runReview},
	"history":       {"list the revisions of a note, or of every note, from the server", runHistory},
	"show":          {"print a revision of a note: KEY[@VERSION]", runShow},
	"diff":          {"show what changed in a note: KEY [V1 [V2]], against the local file by default", runDiff},
	"restore":       {"bring back a deleted or overwritten note as a new revision", runRestore},
	"conflicts":     {"list the conflict copies of each repo, or settle one (resolve)", runConflicts},
	"lint":          {"check the team directory's notes as Claude Code will read them (exit 1 on a finding)", runLint},
	"hook":          {"print context for Claude Code hooks: hook session-start", runHook},
	"mcp":           {"serve the team memory to AI agents over the Model Context Protocol, on stdio", runMCP},
	"scan":          {"scan files and directories for secrets", runScan},
	"service":       {"install, check or remove the sync daemon as your user service", runService},
	"setup":         {"make Claude Code load the team memory teammemd syncs, and start the daemon: setup claude", runSetup},
	"login":         {"log in to a server with your organisation's identity", runLogin},
	"logout":        {"forget the login to a server", runLogout},
}

// version is what "teammemd version" prints and the daemon reports. A
// build may set it with -ldflags "-X main.version=..."; left empty, it comes
// from the build info.
var version string

func init() {
	if version == "" {
		info, _ := debug.ReadBuildInfo()
		version = buildVersion(info)
	}
}

func main() {
	ctx, stop := signalContext()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(ctx, err, os.Stderr))
}

// signalContext is cancelled by SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || isHelp(args[0]) {
		usage(stdout)
		return nil
	}
	if args[0] == "-v" || args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, args[1:], stdout, stderr)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		usage(stderr)
		return usageError{fmt.Errorf("unknown command %q", args[0])}
	}
	return cmd.run(ctx, args[1:], stdout, stderr)
}

// isHelp reports whether arg asks for help, in any spelling the flag
// package accepts.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "--h", "-help", "--help", "help":
		return true
	}
	return false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: teammemd <command> [flags]\n       teammemd --version")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-13s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nRun 'teammemd <command> -h' for a command's flags.")
}

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("version takes no arguments, got %q", fs.Args())}
	}
	_, err := fmt.Fprintln(stdout, "teammemd", version)
	return err
}

// usageError marks bad command-line input (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

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
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return 0 // stopped by a signal: a clean exit
	case errors.As(err, &ee):
		if ee.err != nil {
			printError(stderr, ee.err)
		}
		return ee.code
	case errors.As(err, &ue):
		printError(stderr, err)
		return 2
	default:
		printError(stderr, err)
		return 1
	}
}

// printError prints err escaped for the terminal: it may carry a server's
// message or a file name.
func printError(w io.Writer, err error) {
	fmt.Fprintln(w, "teammemd:", api.Printable(err.Error()))
}

// newFlagSet returns a flag set for a subcommand that reports errors instead
// of exiting and prints its usage to stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("teammemd "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args into fs, turning a parse failure into a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	return nil
}

// buildVersion derives the version from the build info: the module
// version (a release tag, or a pseudo-version from the commit), else the
// commit and its time, else "(devel)".
func buildVersion(info *debug.BuildInfo) string {
	if info == nil {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, when, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case "vcs.time":
			when = " (" + s.Value + ")"
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "(devel)"
	}
	return rev + dirty + when
}
