package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/daemon"
)

// demoRepo is the repo slug the demo's two teammates share.
const demoRepo = "demo/team-memory"

// newDemoCmd is "teammemd demo".
func newDemoCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show a note travel between two teammates, a secret stopped, and the note reach the agent",
		Long: `Start a server on this machine and set up two teammates in a temporary
directory, each with a home directory and a git checkout of their own, as
"teammemd setup claude" sets up a laptop, and a daemon each. Show a note
travel from one to the other, a note holding a secret stopped before it
leaves, and the first note in what the other's Claude Code is given at the
start of a session. With --keep everything keeps running, to try edits by
hand.`,
		Example: `  teammemd demo
  teammemd demo --keep --workdir /tmp/teammemd-demo`,
		Args: noArgs,
	}
	fs := cmd.Flags()
	workdir := fs.String("workdir", "", "new or empty directory for the demo's server data and team directories, kept afterwards (default: a new temporary directory, removed after a run that went well)")
	keep := fs.Bool("keep", false, "keep the server and both daemons running until interrupted, to try edits by hand")
	cmd.RunE = body(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		root, created, err := demoRoot(*workdir)
		if err != nil {
			return err
		}
		lab, err := demoLab(stdout, root)
		if err != nil {
			return err
		}
		d := demo{out: stdout, lab: lab}
		err = d.run(ctx, *keep)
		if stopErr := lab.Close(); err == nil && ctx.Err() == nil {
			err = stopErr
		}
		return finishDemo(stdout, root, created && !*keep, err)
	})
	return cmd
}

// demoRoot returns workdir, created if need be, or a new temporary
// directory when workdir is ""; created says the demo made a temporary
// directory it may remove. A workdir that holds anything is refused: the
// demo starts from empty team directories (a previous demo's would make a
// note seem to travel at once), and puts nothing among a user's files.
func demoRoot(workdir string) (root string, created bool, err error) {
	if workdir != "" {
		if err := os.MkdirAll(workdir, 0o700); err != nil {
			return "", false, fmt.Errorf("create --workdir: %w", err)
		}
		entries, err := os.ReadDir(workdir)
		if err != nil {
			return "", false, fmt.Errorf("read --workdir: %w", err)
		}
		if len(entries) > 0 {
			return "", false, usageError{fmt.Errorf("--workdir %s is not empty (%s, ...): the demo starts from empty team directories; name a new or empty directory, or remove this one first", workdir, entries[0].Name())}
		}
		return workdir, false, nil
	}
	root, err = os.MkdirTemp("", "teammemd-demo-")
	if err != nil {
		return "", false, fmt.Errorf("create demo directory: %w", err)
	}
	return root, true, nil
}

// finishDemo deletes root when removable and the demo succeeded; else it
// keeps it, to be looked at, and says where it is.
func finishDemo(out io.Writer, root string, removable bool, err error) error {
	if !removable || err != nil {
		fmt.Fprintf(out, "\nEverything the demo made is in %s (logs: *.log).\n", root)
		return err
	}
	if err := os.RemoveAll(root); err != nil {
		return fmt.Errorf("remove the demo directory: %w", err)
	}
	fmt.Fprintf(out, "\nRemoved the demo's directory %s; pass --workdir DIR to keep its files.\n", root)
	return nil
}

// demo walks a new user through a file travelling between two teammates,
// a secret being stopped and the note reaching the agent, with a real
// server and two real daemons, each teammate set up as on a laptop.
type demo struct {
	out        io.Writer
	lab        *proclab.Lab
	base       string
	tokens     map[string]string
	alice, bob *proclab.Daemon
}

func (d *demo) run(ctx context.Context, keep bool) error {
	steps := []func(context.Context) error{d.startServer, d.startDaemons, d.travel, d.stopSecret, d.agentReads}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	if !keep {
		return nil
	}
	fmt.Fprintf(d.out, "\nBoth daemons keep running. Edit files in\n  %s\nor\n  %s\nand watch them appear on the other side. "+
		"What bob's Claude Code is given at a session's start, then:\n  %s\nCtrl-C stops everything.\n",
		d.alice.Dir, d.bob.Dir, d.hookLine())
	<-ctx.Done()
	return nil
}

func (d *demo) startServer(ctx context.Context) error {
	fmt.Fprintln(d.out, "1. Start a team memory server on its embedded database and create a token for each teammate:")
	srv, err := d.lab.StartServer(ctx, "server")
	if err != nil {
		return err
	}
	d.base = srv.URL
	d.tokens = map[string]string{}
	for _, name := range demoTeammates {
		if d.tokens[name], err = srv.CreateToken(ctx, name, "demo/**"); err != nil {
			return err
		}
	}
	return nil
}

// demoTeammates are the demo's two teammates.
var demoTeammates = []string{"alice", "bob"}

// demoOrigin is the origin remote of the teammates' checkouts; its slug
// is demoRepo.
const demoOrigin = "https://github.com/" + demoRepo + ".git"

func (d *demo) startDaemons(ctx context.Context) error {
	fmt.Fprintln(d.out, "\n2. Set up two teammates, alice and bob, each with a home directory and a checkout of the\n"+
		"   repo of their own, as on their laptops: teammemd setup claude writes teammemd's config and\n"+
		"   Claude Code's settings, then the daemon starts from that config:")
	var err error
	if d.alice, err = d.setUp(ctx, demoTeammates[0]); err != nil {
		return err
	}
	if d.bob, err = d.setUp(ctx, demoTeammates[1]); err != nil {
		return err
	}
	for _, m := range []*proclab.Daemon{d.alice, d.bob} {
		if err := m.WaitStatus(ctx, 30*time.Second, "sync with the server", pulledOK); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	return nil
}

// setUp lays out a teammate's home and checkout, runs "teammemd setup
// claude" there and starts the daemon from the config it wrote. It shows
// what setup printed for the first teammate only.
func (d *demo) setUp(ctx context.Context, name string) (*proclab.Daemon, error) {
	m, err := d.lab.NewDaemon(ctx, proclab.DaemonSpec{Name: name, Server: d.base, Repo: demoRepo, Origin: demoOrigin})
	if err != nil {
		return nil, err
	}
	in := &proclab.Input{Data: strings.NewReader(d.tokens[name]), Shown: `printf %s "$` + tokenVar(name) + `"`}
	out, err := m.Run(ctx, in, "setup", "claude", "--server", d.base, "--token-stdin", "--checkout", m.Checkout, "--route", "hook", "--no-service")
	if err != nil {
		return nil, err
	}
	if name == demoTeammates[0] {
		fmt.Fprintln(d.out, "     "+strings.ReplaceAll(out, "\n", "\n     "))
	}
	if err := m.Restart(); err != nil {
		return nil, err
	}
	fmt.Fprintf(d.out, "   %s's team directory, Claude Code's for the checkout: %s\n", name, m.Dir)
	return m, nil
}

// pulledOK reports whether a daemon has pulled from the server.
func pulledOK(s daemon.RepoStatus) bool { return s.LastPull != nil && s.LastPull.OK }

// demoNote is the note alice saves: a team note as Claude Code writes
// them, with the frontmatter the team's index lists it by.
const demoNote = "---\nname: Running the tests\ndescription: run make test before pushing; CI runs the same target\ntype: project\n---\n\n" +
	"Run `make test` before pushing; CI uses the same target, so a green run here is a green run there.\n"

// demoNoteName is the file name of demoNote.
const demoNoteName = "testing.md"

func (d *demo) travel(ctx context.Context) error {
	fmt.Fprintln(d.out, "\n3. alice saves a note; bob's daemon brings it onto bob's disk:")
	if err := os.WriteFile(filepath.Join(d.alice.Dir, demoNoteName), []byte(demoNote), 0o600); err != nil {
		return fmt.Errorf("write alice's note: %w", err)
	}
	took, err := waitFor(ctx, 30*time.Second, demoNoteName+" on bob's disk", func() bool {
		got, err := os.ReadFile(filepath.Join(d.bob.Dir, demoNoteName))
		return err == nil && string(got) == demoNote
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "   %s: alice's team directory -> bob's in %s (the daemon waits for 2 s of quiet before it pushes)\n", demoNoteName, took.Round(time.Millisecond))
	return nil
}

func (d *demo) stopSecret(ctx context.Context) error {
	fmt.Fprintln(d.out, "\n4. alice saves a note with a cloud access key in it; it never leaves her machine:")
	if err := os.WriteFile(filepath.Join(d.alice.Dir, "deploy.md"), []byte(demoSecretNote()), 0o600); err != nil {
		return fmt.Errorf("write alice's deploy note: %w", err)
	}
	var held []daemon.Blocked
	if _, err := waitFor(ctx, 60*time.Second, "the scanner holding back deploy.md", func() bool {
		held = d.heldBack(ctx)
		return len(held) > 0
	}); err != nil {
		return err
	}
	for _, h := range heldBack(held) {
		fmt.Fprintf(d.out, "   held back: %s (rules: %s); the secret itself is never logged or shown\n", h.path, strings.Join(h.rules, ", "))
	}
	keys, err := d.serverKeys(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "   the server holds: %v\n", keys)
	if slices.Contains(keys, "deploy.md") {
		return fmt.Errorf("deploy.md reached the server")
	}
	fmt.Fprintln(d.out, "\n5. alice's daemon reports it, and whether her Claude Code reads the team's notes:")
	st, err := d.alice.Run(ctx, nil, "status", "--socket", d.alice.Socket)
	if err != nil {
		return err
	}
	fmt.Fprintln(d.out, "   "+strings.ReplaceAll(st, "\n", "\n   "))
	return nil
}

// hookJSON is the input Claude Code gives the SessionStart hook of a
// session in bob's checkout.
func (d *demo) hookJSON() string {
	in, _ := json.Marshal(map[string]string{"cwd": d.bob.Checkout}) // a map of strings always encodes
	return string(in)
}

// hookInput is the shell command that prints hookJSON.
func (d *demo) hookInput() string { return "echo " + shell.Quote(d.hookJSON()) }

// hookLine is the command that runs bob's SessionStart hook as Claude
// Code does, with the demo's binary, in an environment of bob's home
// alone: the shell's own CLAUDE_CONFIG_DIR or XDG_ variables would send it
// elsewhere.
func (d *demo) hookLine() string {
	return d.hookInput() + " | env -i HOME=" + shell.Quote(d.bob.Home) + ` PATH="$PATH" ` +
		shell.Join(d.lab.Bin, "hook", "session-start")
}

// agentReads shows what bob's Claude Code is given at the start of a
// session in his checkout: the SessionStart hook setup wrote into his
// settings lists alice's note, and never the one held back.
func (d *demo) agentReads(ctx context.Context) error {
	fmt.Fprintln(d.out, "\n6. bob starts Claude Code in his checkout; the SessionStart hook setup put in his\n"+
		"   settings gives the model the team's notes, alice's among them:")
	in := &proclab.Input{Data: strings.NewReader(d.hookJSON() + "\n"), Shown: d.hookInput()}
	out, err := d.bob.Run(ctx, in, "hook", "session-start")
	if err != nil {
		return err
	}
	fmt.Fprintln(d.out, "   "+strings.ReplaceAll(out, "\n", "\n   "))
	if !strings.Contains(out, demoNoteName) || strings.Contains(out, "deploy.md") {
		return fmt.Errorf("bob's session start lists the team's notes without %s, or with deploy.md:\n%s", demoNoteName, out)
	}
	return nil
}

func (d *demo) heldBack(ctx context.Context) []daemon.Blocked {
	st, err := d.alice.Status(ctx)
	if err != nil {
		return nil
	}
	return st.Blocked
}

// serverKeys lists the keys the server holds for the demo repo.
func (d *demo) serverKeys(ctx context.Context) ([]string, error) {
	u := d.base + api.Path + "?" + url.Values{api.ParamRepo: {demoRepo}, api.ParamView: {api.ViewHashes}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+d.tokens[demoTeammates[0]])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("ask the server: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("ask the server: status %s", resp.Status)
	}
	var h api.HashesResponse
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return nil, fmt.Errorf("decode the server's answer: %w", err)
	}
	keys := make([]string, 0, len(h.EntryChecksums))
	for k := range h.EntryChecksums {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, nil
}

// demoSecretNote is a deploy note holding a made-up AWS access key pair. It
// is assembled at run time so this source file does not itself look like a
// leaked key to scanners.
func demoSecretNote() string {
	keyID := "AKIA" + "Q3VX7NMP2RLT6YWZ"
	secret := "wJa7Rx" + "UtnFEMI/K7MDENG/bPxRfiCYzk9Q2mHd"
	return "---\nname: Deploying\ndescription: how to reach the staging bucket\ntype: reference\n---\n\n" +
		"# Deploying\n\nThe staging bucket uses these credentials:\n\n" +
		"    AWS_ACCESS_KEY_ID=" + keyID + "\n    AWS_SECRET_ACCESS_KEY=" + secret + "\n"
}
