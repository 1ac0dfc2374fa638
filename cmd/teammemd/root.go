package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/service"
)

// deps are the parts of this machine the commands use that tests replace.
type deps struct {
	doctorEnv   func() doctorEnv
	machine     func() (service.Machine, error) // the service manager, the user, the terminal
	secretInput func() secretInput
}

// realDeps are this machine's.
func realDeps() deps {
	return deps{doctorEnv: realDoctorEnv, machine: service.ThisMachine, secretInput: realSecretInput}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runWith(ctx, realDeps(), args, stdout, stderr)
}

// runWith runs the command line args with a fresh command tree. An error
// cobra finds in the command line itself (an unknown command or flag,
// wrong arguments) is a usage error, printed after the command's usage.
func runWith(ctx context.Context, d deps, args []string, stdout, stderr io.Writer) error {
	root := newRootCmd(d)
	root.SetArgs(normaliseArgs(root, args))
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	var ran ranError
	if err == nil || errors.As(err, &ran) {
		return unwrapRan(err)
	}
	var ue usageError
	if !errors.As(err, &ue) {
		err = usageError{err}
	}
	if cmd != nil {
		fmt.Fprint(stderr, cmd.UsageString())
		fmt.Fprintln(stderr)
	}
	return err
}

// ranError marks an error a command's body returned, as opposed to one
// cobra found parsing the command line.
type ranError struct{ err error }

func (e ranError) Error() string { return e.err.Error() }
func (e ranError) Unwrap() error { return e.err }

func unwrapRan(err error) error {
	var ran ranError
	if errors.As(err, &ran) {
		return ran.err
	}
	return err
}

// newRootCmd builds the whole command tree.
func newRootCmd(d deps) *cobra.Command {
	root := &cobra.Command{
		Use:   "teammemd",
		Short: "Keep a team's shared AI-agent memory the same on every teammate's machine",
		Long: `teammemd syncs a software team's AI-agent memory notes (the Markdown files
in a repo's team/ directory) through a self-hosted server: "teammemd serve"
runs the server, "teammemd run" the sync daemon on each teammate's machine,
and the other commands operate both by hand.

Flags may come before or after a command's arguments.

Exit status:

` + exitCodeTable(),
		Example: `  teammemd setup claude --server https://teammemd.example.com --token-stdin
  teammemd status
  teammemd help run`,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("no command given")}
			}
			return unknownCommand(cmd, args[0])
		},
	}
	root.SetVersionTemplate("teammemd {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(commands(d)...)
	root.AddCommand(newGendocsCmd())
	markRan(root)
	return root
}

// commands are teammemd's commands, each defined in its own file.
func commands(d deps) []*cobra.Command {
	return []*cobra.Command{
		newVersionCmd(), newDemoCmd(), newDoctorCmd(d), newRunCmd(), newStatusCmd(),
		newServeCmd(), newTokenCmd(), newAdminCmd(), newMigrateStoreCmd(), newSyncCmd(),
		newReviewCmd(), newHistoryCmd(), newShowCmd(), newDiffCmd(), newRestoreCmd(), newConflictsCmd(),
		newLintCmd(), newHookCmd(), newMCPCmd(), newScanCmd(), newServiceCmd(d),
		newSetupCmd(d), newLoginCmd(), newLogoutCmd(), newPersonalCmd(d),
	}
}

// unknownCommand is the usage error for a command that does not exist,
// with cobra's suggestions of the ones meant.
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?"
		for _, name := range s {
			msg += "\n    " + name
		}
	}
	return usageError{errors.New(msg)}
}

// markRan wraps the body of every command below cmd so that their errors
// are told apart from cobra's, and makes a command that only groups
// subcommands fail with a usage error when given none or an unknown one.
func markRan(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		markRan(c)
		switch {
		case c.RunE == nil && c.HasSubCommands():
			c.Args = cobra.ArbitraryArgs
			c.RunE = groupRunE
		case c.RunE != nil:
			c.RunE = ranRunE(c.RunE)
		}
	}
}

// groupRunE is the body of a command that only groups subcommands.
func groupRunE(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return usageError{fmt.Errorf("%s needs a subcommand: %s", commandName(cmd), strings.Join(subcommandNames(cmd), ", "))}
	}
	return unknownCommand(cmd, args[0])
}

// ranRunE marks the errors of body as its own.
func ranRunE(body func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := body(cmd, args); err != nil {
			return ranError{err}
		}
		return nil
	}
}

// body adapts a command body to cobra: its context, arguments and the
// command's output streams.
func body(f func(ctx context.Context, args []string, stdout, stderr io.Writer) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		return f(cmd.Context(), args, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
}

// noArgs is the Args of a command that takes no arguments.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%s takes no arguments, got %q", commandName(cmd), args)
	}
	return nil
}

// wantArgs is the Args of a command that takes from min to max arguments
// (max < 0: no limit); the error says what it wants.
func wantArgs(min, max int, want string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || max >= 0 && len(args) > max {
			return fmt.Errorf("%s takes %s, got %d argument(s)", commandName(cmd), want, len(args))
		}
		return nil
	}
}

// commandName is cmd's path below teammemd: "token revoke".
func commandName(cmd *cobra.Command) string {
	if !cmd.HasParent() {
		return cmd.Name()
	}
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// subcommandNames lists cmd's subcommands that are not hidden.
func subcommandNames(cmd *cobra.Command) []string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return names
}
