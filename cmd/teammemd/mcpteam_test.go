package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/internal/proclab"
)

// awaitNote waits until path holds want, as a daemon's pull lands it.
func awaitNote(t *testing.T, path, want string, d *proclab.Daemon) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got, err := os.ReadFile(path)
		if err == nil && string(got) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %q, %v; want %q (daemon log: %s)", path, got, err, want, d.Proc().LogTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// One team memory for every agent: a note written through teammemd mcp
// on alice's machine reaches bob's team directory through both daemons
// and the server, and the server's /mcp reads it; a note written through
// /mcp reaches both team directories.
func TestMCPWriteReachesTeammate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and two daemons")
	}
	ctx := context.Background()
	lab, err := proclab.New(t.TempDir(), teammemdBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	srv, err := lab.StartServer(ctx, "server")
	if err != nil {
		t.Fatal(err)
	}
	daemons := map[string]*proclab.Daemon{}
	tokens := map[string]string{}
	for _, name := range []string{"alice", "bob"} {
		if tokens[name], err = srv.CreateToken(ctx, name, "acme/*"); err != nil {
			t.Fatal(err)
		}
		if daemons[name], err = lab.StartDaemon(ctx, proclab.DaemonSpec{Name: name, Server: srv.URL, Token: tokens[name], Repo: "acme/app"}); err != nil {
			t.Fatal(err)
		}
	}
	for name, d := range daemons {
		if err := d.WaitPulled(ctx, 60*time.Second); err != nil {
			t.Fatalf("%s: %v (log: %s)", name, err, d.Proc().LogTail())
		}
	}

	cmd := exec.Command(teammemdBinary(t), "mcp", "--dir", daemons["alice"].Dir, "--repo", "acme/app")
	cmd.Env = append(os.Environ(), "TEAMMEMD_CONFIG="+lab.ConfigPath(), "HOME="+t.TempDir(), "TEAMMEMD_SERVER=", "TEAMMEMD_TOKEN=")
	local, err := mcp.NewClient(&mcp.Implementation{Name: "alice"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	const note = "Deploys go out on Tuesdays.\n"
	if _, msg := call(t, local, "memory_write", map[string]any{"key": "ops/deploys.md", "content": note}); msg != "" {
		t.Fatalf("memory_write through teammemd mcp = %s", msg)
	}
	awaitNote(t, filepath.Join(daemons["bob"].Dir, "ops", "deploys.md"), note, daemons["bob"])

	served := &served{addr: srv.Addr}
	remote := served.mcpSession(t, tokens["bob"])
	r, msg := call(t, remote, "memory_read", map[string]any{"repo": "acme/app", "key": "ops/deploys.md"})
	if msg != "" || r["content"] != note {
		t.Fatalf("memory_read on /mcp = %v, %s; want the note alice wrote", r, msg)
	}
	const reply = "Deploys go out on Tuesdays and Thursdays.\n"
	if _, msg := call(t, remote, "memory_write", map[string]any{"repo": "acme/app", "key": "ops/deploys.md", "content": reply, "sha256": r["sha256"]}); msg != "" {
		t.Fatalf("memory_write on /mcp = %s", msg)
	}
	for name, d := range daemons {
		t.Run(name, func(t *testing.T) { awaitNote(t, filepath.Join(d.Dir, "ops", "deploys.md"), reply, d) })
	}
}
