package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/internal/claudelab"
	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/daemon"
)

// remote is the origin both teammates' checkouts share.
const remote = "git@github.com:acme/app.git"

// user is one teammate: a home directory of their own with a git checkout
// of the shared repo, the Claude Code client on a PATH of their own, and
// the fake Messages API and the refusing proxy that client talks to.
type user struct {
	name     string
	home     string
	checkout string
	// team is the team memory directory Claude Code uses for the checkout.
	team     string
	bin      string // holds claude
	claude   string
	fake     *claudelab.Fake
	api      string // the fake's base URL
	proxy    *claudelab.Proxy
	proxyURL string
	// token is the user's teammemd token, daemon the user's teammemd run.
	token  string
	daemon *proclab.Process
}

// newUser creates the user's home, checkout and claude command (from the
// cached build) under dir, and serves the user's fake, whose model follows
// script, and proxy until the test ends.
func newUser(t *testing.T, dir, name string, build claudelab.Build, script func(*user) claudelab.Script) *user {
	t.Helper()
	dir, err := filepath.EvalSymlinks(dir) // the client names projects by the real path
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, name)
	u := &user{name: name, home: home, checkout: filepath.Join(home, "src", "app"), bin: filepath.Join(home, "bin"), proxy: &claudelab.Proxy{}}
	u.team = claude.TeamDir(filepath.Join(home, ".claude"), u.checkout)
	u.fake = claudelab.NewFake(script(u))
	for _, d := range []string{u.checkout, u.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitCheckout(t, u.checkout)
	u.claude = installClient(t, build, u.bin)
	u.api = "http://" + serve(t, u.fake.Serve)
	u.proxyURL = "http://" + serve(t, u.proxy.Serve)
	if v, err := claudelab.Version(t.Context(), u.claude, u.clientEnv()); v != build.Version || err != nil {
		t.Fatalf("%s --version = %q, %v, want %s", u.claude, v, err, build.Version)
	}
	return u
}

// gitCheckout makes dir a git checkout of the shared repo with one commit.
func gitCheckout(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# app\n\nBuild with make.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"remote", "add", "origin", remote},
		{"-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "add", "README.md"},
		{"-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "commit", "-q", "-m", "start"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
}

// serve runs serve on a new loopback listener until the test ends, and
// returns the listener's address.
func serve(t *testing.T, serve func(context.Context, net.Listener) error) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return ln.Addr().String()
}

// shellEnv is what the user's teammemd processes add to the lab's
// environment, as if started from the user's shell: the user's home, the
// config and Claude Code directories of that home, and the API key, API
// base URL and proxy the user's claude has.
func (u *user) shellEnv() []string {
	return append([]string{"HOME=" + u.home, "CLAUDE_CONFIG_DIR=" + filepath.Join(u.home, ".claude"),
		"TEAMMEMD_CONFIG=" + filepath.Join(u.home, ".config", "teammemd", "config.toml")}, u.clientVars()...)
}

// clientEnv is the whole environment of the user's claude: nothing of the
// test's own, the user's home and PATH, and clientVars.
func (u *user) clientEnv() []string {
	return append([]string{"HOME=" + u.home, "PATH=" + u.bin + ":/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}, u.clientVars()...)
}

// clientVars are the fake API key, the fake API's base URL, and the proxy
// for every other host.
func (u *user) clientVars() []string {
	return []string{
		"ANTHROPIC_API_KEY=sk-ant-api03-fake-" + u.name + "-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		"ANTHROPIC_BASE_URL=" + u.api,
		"HTTPS_PROXY=" + u.proxyURL, "HTTP_PROXY=" + u.proxyURL, "NO_PROXY=127.0.0.1,localhost",
	}
}

// ask runs claude -p prompt in the user's checkout, bounded by
// clientTimeout, and returns what it printed.
func (u *user) ask(ctx context.Context, prompt string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, u.claude, append([]string{"-p", prompt}, args...)...)
	cmd.Dir, cmd.Env = u.checkout, u.clientEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s", clientTimeout)
	}
	if err != nil {
		return "", fmt.Errorf("%s's claude -p: %w: %s%s", u.name, err, out, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// start creates the user's token, configures the user with teammemd
// setup claude, starts the daemon with the line setup printed and waits
// for its first pull.
func (u *user) start(ctx context.Context, lab *proclab.Lab, srv *proclab.Server, r route) error {
	var err error
	if u.token, err = srv.CreateToken(ctx, u.name, "acme/**"); err != nil {
		return err
	}
	args, err := u.setUp(ctx, lab, srv.URL, u.token, r)
	if err != nil {
		return fmt.Errorf("set up %s: %w", u.name, err)
	}
	if u.daemon, err = lab.Start(u.name+"-run", u.shellEnv(), args...); err != nil {
		return err
	}
	return waitStatus(ctx, lab, u, "finish its first pull", func(s daemon.RepoStatus) bool { return s.LastPull != nil })
}
