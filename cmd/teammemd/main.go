// Command teammemd keeps a team's shared AI-agent memory the same on every
// teammate's machine: "teammemd serve" runs the team memory server, "teammemd
// run" the sync daemon, and the other commands operate both by hand.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/internal/savetrace"
)

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
	endTrace, err := savetrace.StartFromEnv()
	if err == nil {
		err = run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		if terr := endTrace(); err == nil {
			err = terr
		}
	}
	stop()
	os.Exit(exitCode(ctx, err, os.Stderr))
}

// signalContext is cancelled by SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// newVersionCmd is "teammemd version".
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version",
		Long:    "Print teammemd's version: a release tag, or the commit it was built from.",
		Example: "  teammemd version\n  teammemd --version",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "teammemd", version)
			return err
		},
	}
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
