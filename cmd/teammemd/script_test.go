package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/teammemd/teammemd/server/servertest"
)

// scriptsTimeout bounds the whole set of scripts, which on two cores run
// two at a time under -race; scriptWait bounds each wait inside one.
const (
	scriptsTimeout = 10 * time.Minute
	scriptWait     = 30 * time.Second
)

// TestScripts runs the CLI sessions in testdata/script, each against a
// real server over loopback with its own database: $TEAMMEMD_SERVER and
// $TEAMMEMD_TOKEN name it, $DATA is its data directory for admin. A script
// that needs a server of its own starts "teammemd serve" as a process.
func TestScripts(t *testing.T) {
	deadline := time.Now().Add(scriptsTimeout)
	if d, ok := t.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	testscript.Run(t, testscript.Params{
		Dir:      filepath.Join("testdata", "script"),
		Deadline: deadline,
		Setup: func(env *testscript.Env) error {
			srv := servertest.Start(env.T().(testing.TB))
			env.Setenv("TEAMMEMD_SERVER", srv.URL)
			env.Setenv("TEAMMEMD_TOKEN", srv.Token)
			env.Setenv("DATA", filepath.Dir(srv.Path))
			env.Setenv("TEAMMEMD_CONFIG", filepath.Join(env.WorkDir, "config.toml"))
			env.Setenv("TEAMMEMD_STATE_DIR", filepath.Join(env.WorkDir, "state"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"lines":    cmdLines,
			"exits":    cmdExits,
			"until":    cmdUntil,
			"waitfile": cmdWaitFile,
			"capture":  cmdCapture,
			"secret":   cmdSecret,
		},
	})
}

// cmdLines writes a file of N lines: "lines FILE N".
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: lines FILE N")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil || n < 0 || n > 100_000 {
		ts.Fatalf("lines: N = %q, want 0 to 100000", args[1])
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "- note %d\n", i%10)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// cmdExits runs a program and wants exactly the exit status CODE, where
// "! exec" takes any failure: "exits CODE PROG [ARGS...]". Its stdout and
// stderr are there for the next stdout and stderr commands.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: CODE = %q, want a number", args[0])
	}
	got := 0
	var ee *exec.ExitError
	switch err := ts.Exec(args[1], args[2:]...); {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdUntil runs a program again and again, for at most scriptWait, until
// its stdout matches PATTERN: "until PATTERN PROG [ARGS...]". The last
// run's stdout and stderr are there for the next commands.
func cmdUntil(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: until PATTERN PROG [ARGS...]")
	}
	re := compile(ts, args[0])
	deadline := time.Now().Add(scriptWait)
	for {
		err := ts.Exec(args[1], args[2:]...)
		if re.MatchString(ts.ReadFile("stdout")) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s: stdout never matched %q in %s (last error %v)", args[1], args[0], scriptWait, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cmdWaitFile waits, for at most scriptWait, until FILE exists and its
// content matches PATTERN: "waitfile FILE PATTERN".
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfile FILE PATTERN")
	}
	re := compile(ts, args[1])
	deadline := time.Now().Add(scriptWait)
	for {
		data, err := os.ReadFile(ts.MkAbs(args[0]))
		if err == nil && re.Match(data) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s never matched %q in %s (%v):\n%s", args[0], args[1], scriptWait, err, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cmdCapture sets VAR to the first group of PATTERN in FILE, which may be
// stdout or stderr of the last command: "capture VAR FILE PATTERN".
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: capture VAR FILE PATTERN")
	}
	re := compile(ts, args[2])
	if re.NumSubexp() != 1 {
		ts.Fatalf("capture: PATTERN %q has %d groups, want 1", args[2], re.NumSubexp())
	}
	m := re.FindStringSubmatch(ts.ReadFile(args[1]))
	if m == nil {
		ts.Fatalf("capture: %s does not match %q", args[1], args[2])
	}
	ts.Setenv(args[0], m[1])
}

// cmdSecret writes a note holding a made-up AWS access key id, put together
// here so that no file of the repository holds one: "secret FILE".
func cmdSecret(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: secret FILE")
	}
	note := "---\nname: keys\ndescription: deploy keys\ntype: project\n---\naws_access_key_id = " + "AKIA" + "Z7QW3RTY5UIO2PLK\n"
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(note), 0o644))
}

func compile(ts *testscript.TestScript, pattern string) *regexp.Regexp {
	re, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		ts.Fatalf("pattern %q: %v", pattern, err)
	}
	return re
}
