package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/teammemd/teammemd/service"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/route"
	"github.com/teammemd/teammemd/sync/daemon"
)

// newServiceCmd installs, checks or removes the sync daemon as the user's
// service, on the machine d gives.
func newServiceCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Install, check or remove the sync daemon as your user service",
		Long: `Install, check or remove the sync daemon (teammemd run) as your user
service: a systemd user unit on Linux, a launchd agent on macOS.`,
		Example: `  teammemd service install --server https://teammemd.example.com --token-stdin
  teammemd service status
  teammemd service uninstall`,
	}
	cmd.AddCommand(newServiceInstallCmd(d), newServiceUninstallCmd(d), newServiceStatusCmd(d))
	return cmd
}

// registerInstallFlags adds the flags of "teammemd service install" to fs.
func registerInstallFlags(fs *pflag.FlagSet, o *service.Options) {
	fs.StringVar(&o.Server, "server", "", "server `URL`, e.g. https://teammemd.example.com")
	fs.StringVar(&o.TokenFile, "token-file", "", "`file` holding the API token (mode 0600); the config names it")
	fs.BoolVar(&o.TokenStdin, "token-stdin", false, "read the API token from stdin and keep it in a 0600 token file")
	fs.Func("checkout", "a git `directory` (checkout with a remote) to sync; repeat it for more", func(s string) error {
		o.Checkouts = append(o.Checkouts, s)
		return nil
	})
	fs.BoolVar(&o.AllowInsecure, "allow-insecure", false, "allow a plain http:// server that is not loopback (sets [client] allow_insecure)")
	fs.StringVar(&o.Binary, "binary", "", "the teammemd `binary` the service runs (default: this one)")
	fs.StringVar(&o.Config, "config", "", "config `file` to use or write (default $TEAMMEMD_CONFIG, then "+filepath.Join(configDir(), "config.toml")+")")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print every file and command instead of writing and running them")
}

// newServiceInstallCmd is "teammemd service install".
func newServiceInstallCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Write, enable and start the sync daemon's service",
		Long: `Write the config (asking for what it lacks: the server, the token, the
checkouts to sync), the token file and the unit (a systemd user unit on
Linux, a launchd agent on macOS), then enable and start the service. With
--dry-run it prints every file and command instead.`,
		Example: `  teammemd service install --server https://teammemd.example.com --token-stdin --checkout ~/src/app
  teammemd service install --dry-run`,
		Args: noArgs,
	}
	var o service.Options
	registerInstallFlags(cmd.Flags(), &o)
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, stderr io.Writer) error {
		env, err := serviceEnv(d)
		if err != nil {
			return err
		}
		if err := service.Install(ctx, env, o, stdout, stderr); err != nil {
			return serviceError(err)
		}
		if !o.DryRun {
			offerSetup(ctx, stdout)
		}
		return nil
	})
	return cmd
}

// newServiceUninstallCmd is "teammemd service uninstall".
func newServiceUninstallCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop and remove the service (config, token and data stay)",
		Long: `Stop and disable the sync daemon's service and remove its unit; the
config, the token file and the state stay.`,
		Example: `  teammemd service uninstall
  teammemd service uninstall --dry-run`,
		Args: noArgs,
	}
	dry := cmd.Flags().Bool("dry-run", false, "print every command and file removal instead of running it")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		env, err := serviceEnv(d)
		if err != nil {
			return err
		}
		return serviceError(service.Uninstall(ctx, env, *dry, stdout))
	})
	return cmd
}

// newServiceStatusCmd is "teammemd service status".
func newServiceStatusCmd(d deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether the service is installed, enabled and running, and the daemon's status",
		Long: `Show whether the sync daemon's service is installed, enabled and running,
then what the daemon itself reports on its control socket. Exits 3 unless
the service runs.`,
		Example: `  teammemd service status
  teammemd service status --json`,
		Args: noArgs,
	}
	socket := cmd.Flags().String("socket", "", "the daemon's control socket (default "+daemon.SocketPath(runtimeDir())+")")
	asJSON := jsonFlag(cmd.Flags(), "the service's and the daemon's status")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		env, err := serviceEnv(d)
		if err != nil {
			return err
		}
		r, err := service.Status(ctx, env)
		if err != nil {
			return serviceError(err)
		}
		return serviceStatus(ctx, r, cmp.Or(*socket, daemon.SocketPath(runtimeDir())), *asJSON, stdout)
	})
	return cmd
}

// serviceEnv is what the service commands work with: the machine d gives,
// teammemd's directories and config, and its logins.
func serviceEnv(d deps) (service.Env, error) {
	m, err := d.machine()
	if err != nil {
		return service.Env{}, err
	}
	return service.Env{
		Machine:    m,
		Dirs:       service.Dirs{ConfigHome: xdgDir("XDG_CONFIG_HOME", ".config"), Config: configDir(), State: stateDir()},
		ConfigFile: cmp.Or(os.Getenv("TEAMMEMD_CONFIG"), filepath.Join(configDir(), "config.toml")),
		Decode:     decodeServiceConfig,
		Logins:     loginStore(""),
	}, nil
}

// decodeServiceConfig decodes and validates the whole config file, and
// returns the sections install reads.
func decodeServiceConfig(path string, data []byte) (service.Config, error) {
	cfg, err := decodeConfig(path, data)
	return service.Config{Client: cfg.Client, Daemon: cfg.Daemon}, err
}

// serviceError makes bad input to the service commands a usage error, and
// a config file they cannot use a config error.
func serviceError(err error) error {
	var in service.InputError
	var ce service.ConfigError
	switch {
	case errors.As(err, &in):
		return usageError{err}
	case errors.As(err, &ce):
		return configError{err}
	}
	return err
}

// serviceStatus prints the service's report, then what the daemon on
// socket reports. It exits 3 unless the service runs.
func serviceStatus(ctx context.Context, r service.Report, socket string, asJSON bool, stdout io.Writer) error {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ds, err := daemon.FetchStatus(sctx, socket)
	if asJSON {
		if err := writeServiceStatusJSON(r, socket, ds, err, stdout); err != nil {
			return err
		}
	} else if err := printServiceStatus(r, socket, ds, err, stdout); err != nil {
		return err
	}
	if !r.Runs() {
		return exitError{code: exitDaemonDown}
	}
	return nil
}

// printServiceStatus prints the report and the daemon's status, or why
// there is none.
func printServiceStatus(r service.Report, socket string, ds daemon.Status, err error, stdout io.Writer) error {
	r.Print(stdout)
	switch {
	case errors.Is(err, daemon.ErrNotRunning):
		fmt.Fprintf(stdout, "the daemon does not answer on %s\n", socket)
	case err != nil:
		fmt.Fprintf(stdout, "the daemon's status: %v\n", err)
	default:
		printByHand(stdout, r.Runs(), ds.PID, socket)
		return printStatus(stdout, ds, time.Now())
	}
	return nil
}

// printByHand says that the daemon answering on the socket was started by
// hand, outside the service manager, when the service itself does not run:
// its status follows, and it stops when its terminal or session ends.
func printByHand(w io.Writer, serviceRuns bool, pid int, socket string) {
	if serviceRuns {
		return
	}
	fmt.Fprintf(w, "a daemon started by hand runs outside the service manager: pid %d, socket %s\n", pid, socket)
	fmt.Fprintln(w, "(stop it and run teammemd service install to have the service manager run it)")
}

// offerSetup says, when a Claude Code client on PATH would not show the
// team's notes to the model, that teammemd setup claude makes it.
func offerSetup(ctx context.Context, w io.Writer) {
	c := route.Find(ctx, "")
	home, err := claude.Home()
	if c.Path == "" || err != nil {
		return
	}
	v := route.Inspect(c, home, "", os.Getenv)
	if !v.Loads() {
		fmt.Fprintf(w, "%s will not show the synced notes to the model yet: %s.\n"+
			"teammemd setup claude sets it up (add --dry-run to see what it changes first).\n", clientName(c), v.Why)
	}
	for _, warn := range v.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	if v.MCP != "" {
		fmt.Fprintf(w, "warning: %s; teammemd setup claude registers it again\n", v.MCP)
	}
}
