package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/sync/daemon"
)

// TestReviewEndToEnd runs the real teammemd: a server holding acme/app
// under review, alice's and bob's daemons, and carol reviewing with the
// CLI. Alice's note reaches bob only once carol approves it; her next
// edit, rejected, stays in her file, and her status says why.
func TestReviewEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and two daemons")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	lab, err := proclab.New(t.TempDir(), teammemdBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	if err := lab.SetConfig("[[server.repo]]\nname = \"acme/app\"\nreview = \"required\"\n"); err != nil {
		t.Fatal(err)
	}
	srv, err := lab.StartServer(ctx, "server")
	if err != nil {
		t.Fatal(err)
	}
	token := func(args ...string) string {
		t.Helper()
		out, err := lab.Output(ctx, append([]string{"token", "create", "--data", srv.Data, "--repos", "acme/**"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	carol := []string{"TEAMMEMD_TOKEN=" + token("--subject", "carol", "--review"), "TEAMMEMD_SERVER=" + srv.URL,
		"TEAMMEMD_STATE_DIR=" + t.TempDir()}
	review := func(args ...string) string {
		t.Helper()
		out, err := lab.Run(ctx, carol, nil, append(append([]string{"review"}, args...), "--dir", t.TempDir(), "--repo", "acme/app")...)
		if err != nil {
			t.Fatalf("teammemd review %q: %v", args, err)
		}
		return out
	}
	start := func(name string) *proclab.Daemon {
		t.Helper()
		d, err := lab.StartDaemon(ctx, proclab.DaemonSpec{Name: name, Server: srv.URL, Token: token("--subject", name), Repo: "acme/app"})
		if err == nil {
			err = d.WaitPulled(ctx, time.Minute)
		}
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	alice, bob := start("alice"), start("bob")
	await := func(d *proclab.Daemon, what string, done func(daemon.RepoStatus) bool) daemon.RepoStatus {
		t.Helper()
		if err := d.WaitStatus(ctx, time.Minute, what, done); err != nil {
			t.Fatalf("%v (log: %s)", err, d.Proc().LogTail())
		}
		st, err := d.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	note := func(d *proclab.Daemon) string {
		data, err := os.ReadFile(filepath.Join(d.Dir, "deploy.md"))
		if err != nil {
			return "<missing>"
		}
		return string(data)
	}
	pending := func(r daemon.RepoStatus) bool { return len(r.Review) == 1 && r.Review[0].State == daemon.ReviewPending }

	writeFile(t, filepath.Join(alice.Dir, "deploy.md"), "port 8080\n", 0o644)
	st := await(alice, "send deploy.md for review", pending)
	if got := note(bob); got != "<missing>" {
		t.Errorf("bob has deploy.md before approval: %q", got)
	}
	review("approve", strconv.FormatInt(st.Review[0].Proposal, 10))
	await(bob, "pull the approved note", func(daemon.RepoStatus) bool { return note(bob) == "port 8080\n" })
	await(alice, "settle after the approval", func(r daemon.RepoStatus) bool { return len(r.Review) == 0 })

	writeFile(t, filepath.Join(alice.Dir, "deploy.md"), "port 9999\n", 0o644)
	st = await(alice, "send the edit for review", pending)
	review("reject", strconv.FormatInt(st.Review[0].Proposal, 10), "--reason", "we never use 9999")
	// A reload makes the daemon sync now rather than at its next rescan.
	if err := syscall.Kill(alice.Proc().Pid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	st = await(alice, "see the rejection", func(r daemon.RepoStatus) bool {
		return len(r.Review) == 1 && r.Review[0].State == daemon.ReviewRejected
	})
	if f := st.Review[0]; f.Reason != "we never use 9999" || f.Reviewer != "carol" {
		t.Errorf("alice's status = %+v, want the rejection by carol with its reason", f)
	}
	if got := note(alice); got != "port 9999\n" {
		t.Errorf("alice's note after the rejection = %q, want her edit", got)
	}
	if got := note(bob); got != "port 8080\n" {
		t.Errorf("bob's note after the rejection = %q, want the approved one", got)
	}
}
