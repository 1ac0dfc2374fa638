package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"

	"github.com/teammemd/teammemd/sync/daemon"
)

// newGendocsCmd writes the references generated from the definitions in
// this binary: the command-line reference (Markdown and man pages), the
// config reference and the JSON reference. It is hidden: the project's
// own docs are made with it.
func newGendocsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gendocs",
		Short: "Write the command, config and JSON references",
		Long: `Write the references generated from teammemd's own definitions: with
--reference DIR, DIR/cli/ (one Markdown file per command, teammemd.md the
index), DIR/config.md and DIR/json.md; with --man DIR, a man page per
command.`,
		Example: `  go run ./cmd/teammemd gendocs --reference docs/reference
  teammemd gendocs --man /usr/local/share/man/man1`,
		Args:   noArgs,
		Hidden: true,
	}
	reference := cmd.Flags().String("reference", "", "write the references into this `directory`")
	man := cmd.Flags().String("man", "", "write man pages into this `directory`")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if *reference == "" && *man == "" {
			return usageError{errors.New("gendocs needs --reference DIR, --man DIR or both")}
		}
		root := cmd.Root()
		portablePaths(root, pathNames())
		if *reference != "" {
			if err := writeReference(root, *reference); err != nil {
				return err
			}
		}
		if *man != "" {
			return writeMan(root, *man)
		}
		return nil
	}
	return cmd
}

// writeReference writes dir/cli/*.md, dir/config.md and dir/json.md.
func writeReference(root *cobra.Command, dir string) error {
	cli := filepath.Join(dir, "cli")
	if err := os.MkdirAll(cli, 0o755); err != nil {
		return fmt.Errorf("gendocs: %w", err)
	}
	root.DisableAutoGenTag = true
	if err := doc.GenMarkdownTree(root, cli); err != nil {
		return fmt.Errorf("gendocs: CLI reference: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.md"), []byte(configReference()), 0o644); err != nil {
		return fmt.Errorf("gendocs: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "json.md"), []byte(jsonReference()), 0o644); err != nil {
		return fmt.Errorf("gendocs: %w", err)
	}
	return nil
}

// writeMan writes a man page per command into dir.
func writeMan(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("gendocs: %w", err)
	}
	root.DisableAutoGenTag = true
	header := &doc.GenManHeader{Title: "TEAMMEMD", Section: "1", Source: "teammemd " + version, Manual: "teammemd manual"}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return fmt.Errorf("gendocs: man pages: %w", err)
	}
	return nil
}

// pathNames replaces the directories of this machine and user that the
// flags' defaults name with the variables they come from, so that what
// gendocs writes is the same everywhere.
func pathNames() *strings.Replacer {
	socket := daemon.SocketPath(runtimeDir())
	return strings.NewReplacer(
		socket, "$XDG_RUNTIME_DIR/teammemd/"+filepath.Base(socket),
		runtimeDir(), "$XDG_RUNTIME_DIR/teammemd",
		configDir(), "$XDG_CONFIG_HOME/teammemd",
		dataDir(), "$XDG_DATA_HOME/teammemd",
		stateDir(), "$XDG_STATE_HOME/teammemd",
	)
}

// portablePaths rewrites the usage and defaults of every flag of cmd and
// its subcommands with r.
func portablePaths(cmd *cobra.Command, r *strings.Replacer) {
	fix := func(f *pflag.Flag) {
		f.Usage, f.DefValue = r.Replace(f.Usage), r.Replace(f.DefValue)
	}
	cmd.Flags().VisitAll(fix)
	cmd.PersistentFlags().VisitAll(fix)
	for _, c := range cmd.Commands() {
		portablePaths(c, r)
	}
}
