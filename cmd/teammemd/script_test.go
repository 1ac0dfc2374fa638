package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/teammemd/teammemd/server/servertest"
)

// TestScripts runs the CLI sessions in testdata/script, each against a
// real server over loopback with its own database: $TEAMMEMD_SERVER and
// $TEAMMEMD_TOKEN name it, $DATA is its data directory for admin.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			srv := servertest.Start(env.T().(testing.TB))
			env.Setenv("TEAMMEMD_SERVER", srv.URL)
			env.Setenv("TEAMMEMD_TOKEN", srv.Token)
			env.Setenv("DATA", filepath.Dir(srv.Path))
			env.Setenv("TEAMMEMD_CONFIG", filepath.Join(env.WorkDir, "config.toml"))
			env.Setenv("TEAMMEMD_STATE_DIR", filepath.Join(env.WorkDir, "state"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"lines": cmdLines},
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
