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

	"github.com/teammemd/teammemd/sync/daemon"
)

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
	cmd.RunE = withServiceEnv(d, func(ctx context.Context, env serviceEnv, stdout, _ io.Writer) error {
		return serviceUninstall(ctx, env, dry, stdout)
	})
	return cmd
}

// serviceUninstall stops and disables the service and removes its unit;
// the config, the token file and the state stay.
func serviceUninstall(ctx context.Context, env serviceEnv, dry *bool, stdout io.Writer) error {
	plan, err := servicePlanHere(env)
	if err != nil {
		return err
	}
	if _, err := os.Stat(plan.unit.path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stdout, "teammemd service is not installed (no %s); nothing to do\n", plan.unit.path)
		return nil
	}
	if err := runCommands(ctx, env, plan.uninstall, *dry, stdout); err != nil {
		return err
	}
	if *dry {
		fmt.Fprintf(stdout, "would remove %s\n", plan.unit.path)
	} else if err := os.Remove(plan.unit.path); err != nil {
		return fmt.Errorf("remove the unit: %w", err)
	} else {
		fmt.Fprintf(stdout, "removed %s\n", plan.unit.path)
	}
	if err := runCommands(ctx, env, plan.afterUninstall, *dry, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "kept the config, the token file and the state in %s and %s\n", configDir(), stateDir())
	return nil
}

// servicePlanHere is the manager's plan for this user, for finding and
// removing the unit: the binary and config do not matter there.
func servicePlanHere(env serviceEnv) (servicePlan, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return servicePlan{}, fmt.Errorf("find the home directory: %w", err)
	}
	return env.manager.plan(serviceSpec{home: home, uid: env.uid, binary: "teammemd", config: filepath.Join(configDir(), "config.toml")})
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
	cmd.RunE = withServiceEnv(d, func(ctx context.Context, env serviceEnv, stdout, _ io.Writer) error {
		return serviceStatus(ctx, env, socket, *asJSON, stdout)
	})
	return cmd
}

// serviceStatus says whether the service is installed, enabled and
// running, then what the daemon itself reports. It exits 3 unless the
// service runs.
func serviceStatus(ctx context.Context, env serviceEnv, socket *string, asJSON bool, stdout io.Writer) error {
	plan, err := servicePlanHere(env)
	if err != nil {
		return err
	}
	_, statErr := os.Stat(plan.unit.path)
	installed := statErr == nil
	st := env.manager.state(ctx, env.runner, serviceSpec{uid: env.uid})
	if asJSON {
		return writeServiceStatusJSON(ctx, plan, installed, st, *socket, stdout)
	}
	fmt.Fprintf(stdout, "%-10s %s %s\n", "service:", plan.name, plan.unit.path)
	fmt.Fprintf(stdout, "%-10s %s\n", "installed:", yesNo(installed))
	fmt.Fprintf(stdout, "%-10s %s\n", "enabled:", yesNo(installed && st.enabled))
	fmt.Fprintf(stdout, "%-10s %s\n\n", "running:", serviceRunning(installed, st))
	path := cmp.Or(*socket, daemon.SocketPath(runtimeDir()))
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ds, err := daemon.FetchStatus(sctx, path)
	switch {
	case errors.Is(err, daemon.ErrNotRunning):
		fmt.Fprintf(stdout, "the daemon does not answer on %s\n", path)
	case err != nil:
		fmt.Fprintf(stdout, "the daemon's status: %v\n", err)
	default:
		printByHand(stdout, installed && st.running, ds.PID, path)
		if err := printStatus(stdout, ds, time.Now()); err != nil {
			return err
		}
	}
	if !installed || !st.running {
		return exitError{code: exitDaemonDown}
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// serviceRunning says whether the service manager runs the service: a
// unit that is not installed is not running under it, whatever the
// manager answers for its name.
func serviceRunning(installed bool, st serviceState) string {
	if !installed {
		return "no (not installed)"
	}
	return yesNo(st.running) + " (" + st.detail + ")"
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
