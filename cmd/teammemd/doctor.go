package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/checkup"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/credential"
	"github.com/teammemd/teammemd/sync/daemon"
)

// doctorEnv is what "teammemd doctor" reads besides the config; the tests
// set a clock and the inotify settings of their choice.
type doctorEnv struct {
	now        func() time.Time
	inotifyDir string // /proc/sys/fs/inotify, "" where there is none
}

func realDoctorEnv() doctorEnv {
	env := doctorEnv{now: time.Now}
	if runtime.GOOS == "linux" {
		env.inotifyDir = "/proc/sys/fs/inotify"
	}
	return env
}

// Check outcomes.
const (
	checkOK   = checkup.OK
	checkFail = checkup.Fail
	checkSkip = checkup.Skip
	checkInfo = checkup.Info
)

// doctor runs the checks in order; later checks use what earlier ones
// found.
type doctor struct {
	env    doctorEnv
	out    io.Writer
	rep    *checkup.Report // what report printed, for --json
	flags  clientFlags
	config string // --config
	claude string // --claude
	socket string // --socket

	cfg      Config
	client   memsync.ClientConfig // resolved server, token file, state dir
	rule     credential.Rule
	token    string
	plan     daemon.Plan
	prober   *checkup.Prober
	reached  bool      // the server answered
	identity bool      // ... as a teammemd server
	date     time.Time // the server's Date header
	// servers holds what the repos' own servers answered to the
	// protocol's check, each asked once.
	servers map[string]checkup.Result
	// badConfig is set when the config file does not load: the checks
	// that read it are skipped, not failed one by one.
	badConfig bool
}

// report prints one check's line: its outcome, name and detail, and for a
// failure the fix.
func (d *doctor) report(outcome, name, detail, fix string) { d.rep.Add(outcome, name, detail, fix) }

// result reports one check's result under name.
func (d *doctor) result(name string, r checkup.Result) { d.report(r.Outcome, name, r.Detail, r.Fix) }

// newDoctorCmd is "teammemd doctor".
func newDoctorCmd(deps deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the config, token, server, repos and this machine, with a fix for each problem",
		Long: `Check, in order, the config, the server URL and token, that the server
answers and accepts the token, the repos and their team directories, Claude
Code, the personal lane (when this machine holds a personal key and the
config does not turn it off), the daemon, inotify limits and the clock, and
print a fix for each problem. Exits 1 when a check fails.`,
		Example: `  teammemd doctor
  teammemd doctor --json
  teammemd doctor --config ~/.config/teammemd/config.toml --server https://teammemd.example.com`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	d := &doctor{}
	fs.StringVar(&d.config, "config", "", "config `file` (default $TEAMMEMD_CONFIG, then "+configDir()+"/config.toml)")
	fs.StringVar(&d.claude, "claude", "", "the Claude Code `executable` to check (default: claude on PATH)")
	fs.StringVar(&d.socket, "socket", "", "the daemon's control socket (default "+daemon.SocketPath(runtimeDir())+")")
	d.flags.register(fs)
	asJSON := jsonFlag(fs, "the checks")
	cmd.RunE = body(func(ctx context.Context, _ []string, stdout, _ io.Writer) error {
		d.env, d.out = deps.doctorEnv(), stdout
		if *asJSON {
			return runDoctorJSON(ctx, d, stdout)
		}
		return runDoctor(ctx, d)
	})
	return cmd
}

// runDoctor runs every check and reports on d.out.
func runDoctor(ctx context.Context, d *doctor) error {
	d.prober = checkup.NewProber("teammemd/" + version + " doctor")
	defer d.prober.Close()
	d.rep = checkup.NewReport(d.out)
	for _, check := range []func(context.Context){
		d.checkConfig, d.checkServer, d.checkToken, d.checkReachable, d.checkIdentity,
		d.checkAuth, d.checkRepos, d.checkTeamDirs, d.checkAgent, d.checkPersonal, d.checkDaemon, d.checkInotify, d.checkClock,
	} {
		check(ctx)
	}
	if n := d.rep.Failed(); n > 0 {
		return exitError{code: 1, err: fmt.Errorf("%d %s failed", n, checkup.Plural(n, "check", "checks"))}
	}
	return nil
}

// skipForConfig reports the check name as skipped when the config file
// does not load, and says so.
func (d *doctor) skipForConfig(name string) bool {
	if d.badConfig {
		d.report(checkSkip, name, "needs a config that loads", "")
	}
	return d.badConfig
}
