package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/sync/fsio"
)

// Options are what "teammemd service install" is told: the server, the
// token, the checkouts to sync, the binary and the config file; what is
// missing is taken from the config, or asked for on a terminal.
type Options struct {
	Server, TokenFile, Config, Binary string
	Checkouts                         []string
	TokenStdin, AllowInsecure, DryRun bool
}

// Installation is an install worked out and not yet done: the unit's spec,
// the manager's plan, and the config and token files install writes.
type Installation struct {
	Spec  Spec
	Plan  Plan
	Files []FileWrite
	env   Env
	dry   bool
}

// Prepare works out an install: the home directory, binary and config,
// the manager's plan, and what the config lacks, asked for on prompts when
// env is interactive. It writes and runs nothing.
func Prepare(env Env, o Options, prompts io.Writer) (*Installation, error) {
	spec, err := installSpec(env, o)
	if err != nil {
		return nil, err
	}
	plan, err := env.Manager.Plan(spec)
	if err != nil {
		return nil, err
	}
	files, err := installConfig(env, o, spec.Config, plan.Reload, newPrompter(env.Machine, prompts))
	if err != nil {
		return nil, err
	}
	return &Installation{Spec: spec, Plan: plan, Files: files, env: env, dry: o.DryRun}, nil
}

// Install writes the config (with what it lacks), the token file and the
// unit, then enables and starts the service. With o.DryRun it prints every
// file and command instead.
func Install(ctx context.Context, env Env, o Options, stdout, stderr io.Writer) error {
	in, err := Prepare(env, o, stderr)
	if err != nil {
		return err
	}
	if !o.DryRun {
		if err := in.ManagerAnswers(ctx); err != nil {
			return in.withoutManager(err, stdout)
		}
	}
	if err := in.WriteConfig(stdout); err != nil {
		return err
	}
	if err := in.Start(ctx, stdout); err != nil {
		return err
	}
	if o.DryRun {
		fmt.Fprintln(stdout, "dry run: nothing was written or run")
		return nil
	}
	fmt.Fprintf(stdout, "teammemd run is installed as a %s and started; teammemd service status shows how it does\n", in.Plan.Name)
	return nil
}

// WriteConfig writes the config and token files, or in a dry run prints
// them, the token never.
func (in *Installation) WriteConfig(w io.Writer) error {
	for _, fw := range in.Files {
		if err := fw.Apply(in.dry, w); err != nil {
			return err
		}
	}
	return nil
}

// withoutManager writes the config and token files, so that the line it
// prints runs the daemon by hand, and returns noManager, the manager's
// refusal, with what was written and what to do.
func (in *Installation) withoutManager(noManager error, w io.Writer) error {
	var wrote []string
	for _, fw := range in.Files {
		if !sameFile(fw.Path, fw.Data) {
			wrote = append(wrote, fw.describe())
		}
	}
	if err := in.WriteConfig(w); err != nil {
		return err
	}
	done := "nothing was written"
	if len(wrote) > 0 {
		done = "wrote " + strings.Join(wrote, " and ")
	}
	return fmt.Errorf("%w; %s, and no service was installed. %s, or run the daemon yourself: %s",
		noManager, done, in.Plan.NoManager, in.RunLine())
}

// Start writes the unit and runs the manager's commands that enable and
// start it, or in a dry run prints them.
func (in *Installation) Start(ctx context.Context, w io.Writer) error {
	if err := in.Plan.Unit.Apply(in.dry, w); err != nil {
		return err
	}
	return runCommands(ctx, in.env, in.Plan.Install, in.dry, w)
}

// RunLine is the command that runs the daemon by hand, as the unit does.
func (in *Installation) RunLine() string {
	return shell.Join(in.Spec.Binary, "run", "--config", in.Spec.Config)
}

// ManagerAnswers asks the service manager whether it answers for this
// user; its error carries what the manager said.
func (in *Installation) ManagerAnswers(ctx context.Context) error {
	out, err := in.env.Runner.Run(ctx, in.Plan.Probe)
	if err == nil {
		return nil
	}
	if msg, _, _ := strings.Cut(strings.TrimSpace(out), "\n"); msg != "" {
		return fmt.Errorf("no %s answers here: %s", in.Plan.Name, msg)
	}
	return fmt.Errorf("no %s answers here: %w", in.Plan.Name, err)
}

// installSpec finds the home directory, the binary and the config path.
func installSpec(env Env, o Options) (Spec, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Spec{}, fmt.Errorf("find the home directory: %w", err)
	}
	bin, err := installBinary(o.Binary)
	if err != nil {
		return Spec{}, err
	}
	config, err := filepath.Abs(cmp.Or(o.Config, env.ConfigFile))
	if err != nil {
		return Spec{}, fmt.Errorf("config path: %w", err)
	}
	return Spec{Home: home, ConfigHome: env.Dirs.ConfigHome, UID: env.UID, Binary: bin, Config: config}, nil
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
		return "", InputError{fmt.Errorf("%s is a temporary build, which go run deletes: "+
			"install teammemd first (go install ./cmd/teammemd) and run this command with the installed one, or pass --binary", abs)}
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("binary: %w", err)
	}
	if !fsio.Executable(info.Mode()) {
		return "", InputError{fmt.Errorf("binary %s is not an executable file", abs)}
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
	errInstallNoServer = InputError{errors.New("no server: pass --server URL (e.g. https://teammemd.example.com)")}
	errInstallNoToken  = InputError{errors.New("no API token: pass --token-file FILE (a file holding the token, mode 0600), " +
		"or --token-stdin to read it from stdin (printf %s \"$TEAMMEMD_TOKEN\" | teammemd service install --token-stdin ...), " +
		"or log in first with teammemd login --server URL")}
	errInstallNoRepo = InputError{errors.New("no repo to sync: pass --checkout DIR (a git checkout with a remote; repeat it for more)")}
)
