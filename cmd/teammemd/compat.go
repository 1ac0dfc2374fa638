package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// normaliseArgs rewrites the single-dash long flags of earlier versions,
// "-config FILE" or "-config=FILE", to "--config": the units, plists,
// hooks and scripts they installed still run. Only an argument that names
// a long flag of the command it follows is rewritten; an argument after
// "--", or the value of a flag, is left as it is.
func normaliseArgs(root *cobra.Command, args []string) []string {
	out := make([]string, 0, len(args))
	cmd := root
	positional := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		out = append(out, arg)
		switch {
		case arg == "--":
			return append(out, args[i+1:]...)
		case !strings.HasPrefix(arg, "-"):
			if sub := subcommand(cmd, arg); sub != nil && !positional {
				cmd = sub
			} else {
				positional = true
			}
		default:
			f := longFlag(cmd, arg)
			if f == nil {
				continue
			}
			if !strings.HasPrefix(arg, "--") {
				out[len(out)-1] = "-" + arg
			}
			if f.NoOptDefVal == "" && !strings.Contains(arg, "=") && i+1 < len(args) {
				i++
				out = append(out, args[i]) // the flag's value
			}
		}
	}
	return out
}

// subcommand is cmd's subcommand called name, or nil.
func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

// longFlag is the long flag of cmd that arg, "-name", "--name" or either
// with "=value", names, or nil.
func longFlag(cmd *cobra.Command, arg string) *pflag.Flag {
	name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, _ = strings.Cut(name, "=")
	if len(name) < 2 {
		return nil
	}
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	if f := cmd.Flags().Lookup(name); f != nil {
		return f
	}
	return cmd.InheritedFlags().Lookup(name)
}
