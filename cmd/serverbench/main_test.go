package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for the command as the floor
// server, which the command starts from its own executable.
func TestMain(m *testing.M) {
	if spec := os.Getenv(floorEnv); spec != "" {
		os.Exit(floorMain(spec, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestRunTiny runs the whole command at a tiny size: the floor, the
// SQLite store floor and teammemd built from this tree on SQLite, and the
// PostgreSQL store floor and teammemd on PostgreSQL when
// TEAMMEMD_TEST_POSTGRES names a database.
func TestRunTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("builds teammemd")
	}
	args := []string{"-rounds", "1", "-puts", "24", "-clients", "3", "-size", "512", "-timeout", "5m", "-storefloors"}
	want := []string{kindFloor, kindFloorSQLite, kindSQLite}
	if pg := os.Getenv("TEAMMEMD_TEST_POSTGRES"); pg != "" {
		args = append(args, "-postgres", pg)
		want = append(want, kindFloorPostgres, kindPostgres)
	}
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := run(ctx, args, &stdout, &stderr); err != nil {
		t.Fatalf("run(%q) = %v; stderr: %s", args, err, stderr.String())
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "1" {
			rows[f[1]] = true
		}
	}
	for _, kind := range want {
		if !rows[kind] {
			t.Errorf("run(%q) printed no row for %s:\n%s", args, kind, stdout.String())
		}
	}
}

// TestNoteText checks the note texts are the size asked for and differ
// from PUT to PUT and from client to client.
func TestNoteText(t *testing.T) {
	seen := map[string]bool{}
	for _, tt := range []struct{ client, n, size int }{{0, 0, 64}, {0, 1, 64}, {1, 0, 64}, {3, 7, 4096}, {3, 8, 100_000}} {
		got := noteText(tt.client, tt.n, tt.size)
		if len(got) != tt.size {
			t.Errorf("len(noteText(%d, %d, %d)) = %d, want %d", tt.client, tt.n, tt.size, len(got), tt.size)
		}
		if seen[got] {
			t.Errorf("noteText(%d, %d, %d) repeats an earlier text", tt.client, tt.n, tt.size)
		}
		seen[got] = true
	}
}

// TestParseFlags refuses sizes out of bounds.
func TestParseFlags(t *testing.T) {
	for _, args := range [][]string{{"-rounds", "0"}, {"-clients", "0"}, {"-puts", "3", "-clients", "4"}, {"-size", "10"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) = nil error, want one", args)
		}
	}
	if o, err := parseFlags(nil, io.Discard); err != nil || o.clients != 16 || o.size != 4096 {
		t.Errorf("parseFlags(nil) = %+v, %v, want 16 clients of 4096 bytes", o, err)
	}
}

func TestTaskSwitches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status")
	status := "Name:\tteammemd\nThreads:\t7\nvoluntary_ctxt_switches:\t120\nnonvoluntary_ctxt_switches:\t31\n"
	if err := os.WriteFile(path, []byte(status), 0o600); err != nil {
		t.Fatal(err)
	}
	if n, err := taskSwitches(path); n != 151 || err != nil {
		t.Errorf("taskSwitches(status) = %d, %v, want 151, nil", n, err)
	}
	if err := os.WriteFile(path, []byte("voluntary_ctxt_switches:\tmany\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := taskSwitches(path); err == nil {
		t.Error("taskSwitches(malformed status) error = nil, want an error")
	}
}
