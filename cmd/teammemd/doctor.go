package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
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
	checkOK   = "ok"
	checkFail = "FAIL"
	checkSkip = "skip"
	// checkInfo is a state worth knowing that needs nothing done.
	checkInfo = "info"
)

// doctor runs the checks in order; later checks use what earlier ones
// found.
type doctor struct {
	env    doctorEnv
	out    io.Writer
	flags  clientFlags
	config string // --config
	claude string // --claude
	socket string // --socket

	cfg      Config
	client   memsync.ClientConfig // resolved server, token file, state dir
	rule     tokenRule
	token    string
	plan     daemon.Plan
	http     *http.Client
	reached  bool      // the server answered
	identity bool      // ... as a teammemd server
	date     time.Time // the server's Date header
	failed   int
	// badConfig is set when the config file does not load: the checks
	// that read it are skipped, not failed one by one.
	badConfig bool
}

// report prints one check's line: its outcome, name and detail, and for a
// failure the fix.
func (d *doctor) report(outcome, name, detail, fix string) {
	line := fmt.Sprintf("%-4s  %-9s %s", outcome, name, detail)
	if outcome == checkFail {
		d.failed++
		line += "; fix: " + fix
	}
	fmt.Fprintln(d.out, line)
}

func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runDoctorWith(ctx, realDoctorEnv(), args, stdout, stderr)
}

func runDoctorWith(ctx context.Context, env doctorEnv, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("doctor", stderr)
	d := &doctor{env: env, out: stdout}
	fs.StringVar(&d.config, "config", "", "config `file` (default $TEAMMEMD_CONFIG, then "+configDir()+"/config.toml)")
	fs.StringVar(&d.claude, "claude", "", "the Claude Code `executable` to check (default: claude on PATH)")
	fs.StringVar(&d.socket, "socket", "", "the daemon's control socket (default "+daemon.SocketPath(runtimeDir())+")")
	d.flags.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("doctor takes no arguments, got %q", fs.Args())}
	}
	d.http = &http.Client{
		Timeout: 10 * time.Second,
		// A redirect is reported, not followed: the client does not follow
		// it either.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer d.http.CloseIdleConnections()
	for _, check := range []func(context.Context){
		d.checkConfig, d.checkServer, d.checkToken, d.checkReachable, d.checkIdentity,
		d.checkAuth, d.checkRepos, d.checkTeamDirs, d.checkAgent, d.checkDaemon, d.checkInotify, d.checkClock,
	} {
		check(ctx)
	}
	if d.failed > 0 {
		return exitError{code: 1, err: fmt.Errorf("%d %s failed", d.failed, plural(d.failed, "check", "checks"))}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// skipForConfig reports the check name as skipped when the config file
// does not load, and says so.
func (d *doctor) skipForConfig(name string) bool {
	if d.badConfig {
		d.report(checkSkip, name, "needs a config that loads", "")
	}
	return d.badConfig
}
