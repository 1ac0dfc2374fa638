package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/route"
)

// installFlags are the flags of "teammemd service install".
type installFlags struct {
	server, tokenFile, config, binary string
	checkouts                         []string
	tokenStdin, allowInsecure, dryRun bool
}

func (f *installFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.server, "server", "", "server `URL`, e.g. https://teammemd.example.com")
	fs.StringVar(&f.tokenFile, "token-file", "", "`file` holding the API token (mode 0600); the config names it")
	fs.BoolVar(&f.tokenStdin, "token-stdin", false, "read the API token from stdin and keep it in a 0600 token file")
	fs.Func("checkout", "a git `directory` (checkout with a remote) to sync; repeat it for more", func(s string) error {
		f.checkouts = append(f.checkouts, s)
		return nil
	})
	fs.BoolVar(&f.allowInsecure, "allow-insecure", false, "allow a plain http:// server that is not loopback (sets [client] allow_insecure)")
	fs.StringVar(&f.binary, "binary", "", "the teammemd `binary` the service runs (default: this one)")
	fs.StringVar(&f.config, "config", "", "config `file` to use or write (default $TEAMMEMD_CONFIG, then "+filepath.Join(configDir(), "config.toml")+")")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print every file and command instead of writing and running them")
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
	var f installFlags
	f.register(cmd.Flags())
	cmd.RunE = withServiceEnv(d, func(ctx context.Context, env serviceEnv, stdout, stderr io.Writer) error {
		return serviceInstall(ctx, env, f, stdout, stderr)
	})
	return cmd
}

// serviceInstall writes the config (with what it lacks), the token file
// and the unit, then enables and starts the service.
func serviceInstall(ctx context.Context, env serviceEnv, f installFlags, stdout, stderr io.Writer) error {
	spec, err := installSpec(env, f)
	if err != nil {
		return err
	}
	plan, err := env.manager.plan(spec)
	if err != nil {
		return err
	}
	files, err := installConfig(env, f, spec.config, plan.reload, newPrompter(env, stderr))
	if err != nil {
		return err
	}
	if !f.dryRun {
		if err := managerAnswers(ctx, env, plan); err != nil {
			return fmt.Errorf("%w; nothing was written. %s, or run the daemon yourself: %s",
				err, plan.noManager, shell.Join(spec.binary, "run", "--config", spec.config))
		}
	}
	for _, fw := range append(files, plan.unit) {
		if err := fw.apply(f.dryRun, stdout); err != nil {
			return err
		}
	}
	if err := runCommands(ctx, env, plan.install, f.dryRun, stdout); err != nil {
		return err
	}
	if f.dryRun {
		fmt.Fprintln(stdout, "dry run: nothing was written or run")
		return nil
	}
	fmt.Fprintf(stdout, "teammemd run is installed as a %s and started; teammemd service status shows how it does\n", plan.name)
	offerSetup(ctx, stdout)
	return nil
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
}

// managerAnswers asks the service manager whether it answers for this
// user; its error carries what the manager said.
func managerAnswers(ctx context.Context, env serviceEnv, plan servicePlan) error {
	out, err := env.runner.run(ctx, plan.probe)
	if err == nil {
		return nil
	}
	if msg, _, _ := strings.Cut(strings.TrimSpace(out), "\n"); msg != "" {
		return fmt.Errorf("no %s answers here: %s", plan.name, msg)
	}
	return fmt.Errorf("no %s answers here: %w", plan.name, err)
}

// installSpec finds the home directory, the binary and the config path.
func installSpec(env serviceEnv, f installFlags) (serviceSpec, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return serviceSpec{}, fmt.Errorf("find the home directory: %w", err)
	}
	bin, err := installBinary(f.binary)
	if err != nil {
		return serviceSpec{}, err
	}
	config, err := filepath.Abs(cmp.Or(f.config, os.Getenv("TEAMMEMD_CONFIG"), filepath.Join(configDir(), "config.toml")))
	if err != nil {
		return serviceSpec{}, fmt.Errorf("config path: %w", err)
	}
	return serviceSpec{home: home, uid: env.uid, binary: bin, config: config}, nil
}

// installBinary is the binary the service runs: path, else this one. It
// must not be a temporary build of "go run".
func installBinary(path string) (string, error) {
	if path == "" {
		exe, err := os.Executable()
		if err == nil {
			exe, err = filepath.EvalSymlinks(exe)
		}
		if err != nil {
			return "", fmt.Errorf("find the teammemd binary: %w (pass --binary)", err)
		}
		path = exe
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("binary path: %w", err)
	}
	if inBuildCache(abs) {
		return "", usageError{fmt.Errorf("%s is a temporary build, which go run deletes: "+
			"install teammemd first (go install ./cmd/teammemd), then run that teammemd service install, or pass --binary", abs)}
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("binary: %w", err)
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		return "", usageError{fmt.Errorf("binary %s is not an executable file", abs)}
	}
	return abs, nil
}

// inBuildCache reports whether path lies in a go-build directory, where
// "go run" puts the binaries it runs.
func inBuildCache(path string) bool {
	for _, part := range strings.Split(filepath.ToSlash(path), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// The refusals of an install that would leave the service nothing to do.
var (
	errInstallNoServer = usageError{errors.New("no server: pass --server URL (e.g. https://teammemd.example.com)")}
	errInstallNoToken  = usageError{errors.New("no API token: pass --token-file FILE (a file holding the token, mode 0600), " +
		"or --token-stdin to read it from stdin (printf %s \"$TEAMMEMD_TOKEN\" | teammemd service install --token-stdin ...), " +
		"or log in first with teammemd login --server URL")}
	errInstallNoRepo = usageError{errors.New("no repo to sync: pass --checkout DIR (a git checkout with a remote; repeat it for more)")}
)
