package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets the demo start this test binary as teammemd child processes.
func TestMain(m *testing.M) {
	if os.Getenv(demoEnv) == "1" {
		ctx, stop := signalContext()
		err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(exitCode(ctx, err, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and two daemons")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := t.TempDir()
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"demo", "--workdir", root}, &out, &errOut); err != nil {
		t.Fatalf("teammemd demo = %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	got := out.String()
	for _, want := range []string{
		"teammemd serve --listen 127.0.0.1:",
		"alice/team/MEMORY.md -> bob/team/MEMORY.md in",
		"held back: deploy.md (rules: aws-access-token",
		"the server holds: [MEMORY.md]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "bob", "team", "deploy.md")); !os.IsNotExist(err) {
		t.Errorf("bob has deploy.md (stat error %v), want it held back on alice's machine", err)
	}
	secret := demoSecretNote()
	key := secret[strings.Index(secret, "AKIA"):][:20]
	err := filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(path) != ".log" {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, []byte(key)) {
			t.Errorf("%s contains the access key", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, key) {
		t.Errorf("demo output contains the access key")
	}
}
