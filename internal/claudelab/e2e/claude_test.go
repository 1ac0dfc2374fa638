// The end-to-end test of teammemd with the shipped Claude Code client.
//
// TestTeamNoteReachesTeammate proves, for each route (the SessionStart
// hook; the memory stores, with the hook beside them) on each pinned
// client release, that a team note one teammate's agent writes reaches the
// other teammate's agent, and that a note holding a secret never leaves
// the first machine.
//
// What is real: the Claude Code client as the npm registry ships it
// (fetched once into $TEAMMEMD_CLAUDE_CACHE, default
// $XDG_CACHE_HOME/teammemd/claude-code, after a check against the
// registry's sha512 integrity), run as claude -p with a home, a git
// checkout and an API key of each teammate's own; and every teammemd
// process: teammemd serve, teammemd setup claude for each teammate (the
// only thing that configures them), the teammemd run line setup prints,
// and the teammemd hook session-start the client runs. What is scripted:
// the model. A fake Messages API answers each client with scripted replies
// and keeps every request: alice's model writes two team notes with the
// client's own Write tool, one of them holding an AWS key; bob's model
// reads a file, which keeps its turn going while the client recalls
// memories, and answers. Every other connection a client or a daemon makes
// goes to a proxy that refuses and counts it. It all runs in a network
// namespace of its own that has only loopback.
//
// What the clients do, as pinned here (2.1.88, 2.1.328, 2.1.332): each
// writes the first note with its Write tool without asking for
// permission, and refuses the second ("Content contains potential secrets
// ... cannot be written to team memory"), so alice saves that note herself
// and her daemon holds it back. Each puts the hook's output into the first
// request: 2.1.328 and 2.1.332 as a system message, 2.1.88 in a
// <system-reminder> of the first user message. On the stores route the
// client lists the team's notes by description in a recall query to the
// model and puts the notes the model selects into the next request.
//
// teammemd doctor, run in bob's checkout with his client, says before setup
// that the client will not show the team's notes to the model, and after
// setup by which route it will.
//
// It runs only with TEAMMEMD_TEST_CLAUDE=1 (CI sets it), as root (for the
// namespace), with node on PATH (for 2.1.88); then anything missing fails
// it.
package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/teammemd/teammemd/internal/claudelab"
	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/internal/proclab/labtest"
	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/sync/daemon"
)

const (
	// clientTimeout bounds one run of claude.
	clientTimeout = 90 * time.Second
	// syncTimeout bounds each wait for a daemon: its first pull, a note
	// from alice's disk to bob's, a note held back.
	syncTimeout = 60 * time.Second
	// repo is the slug of the shared checkout's remote.
	repo = "acme/app"
)

// The frames a client puts the SessionStart hook's output in.
const (
	// systemFrame is a system message of its own (2.1.328, 2.1.332).
	systemFrame = "SessionStart:startup hook success: "
	// reminderFrame is a <system-reminder> in the first user message
	// (2.1.88).
	reminderFrame = "<system-reminder>\nSessionStart:startup hook success: "
)

// scenario is one route on one client release.
type scenario struct {
	build claudelab.Build
	route route
	// hookFrame starts the text block of bob's first request that holds
	// the hook's output.
	hookFrame string
}

func TestTeamNoteReachesTeammate(t *testing.T) {
	if os.Getenv(gateEnv) != "1" {
		t.Skipf("set %s=1 to run the shipped Claude Code clients (fetched from the npm registry, about 400 MB) "+
			"in a network namespace of their own (needs root; see .ci/run)", gateEnv)
	}
	if err := claudelab.OnlyLoopback(); err != nil {
		t.Fatalf("the test must run in a network namespace with nothing but loopback: %v", err)
	}
	for _, sc := range []scenario{
		{builds[1], storesRoute, systemFrame},
		{builds[2], storesRoute, systemFrame},
		{builds[1], hookRoute, systemFrame},
		{builds[2], hookRoute, systemFrame},
		{builds[0], hookRoute, reminderFrame},
	} {
		t.Run(string(sc.route)+"-"+sc.build.Version, sc.run)
	}
}

func (sc scenario) run(t *testing.T) {
	ctx := t.Context()
	lab, srv := startServer(t)
	n := newNotes()
	alice := newUser(t, lab.Dir, "alice", sc.build, func(u *user) claudelab.Script { return n.aliceScript(u.team) })
	bob := newUser(t, lab.Dir, "bob", sc.build, func(u *user) claudelab.Script { return bobScript(u.checkout, sc.route) })
	checkDoctor(t, lab, bob, "before setup", "FAIL  agent          "+repo+": Claude Code "+sc.build.Version+" will not show these team notes to the model: ",
		"TEAMMEMD_CONFIG=", "TEAMMEMD_SERVER="+srv.URL)
	for _, u := range []*user{alice, bob} {
		if err := u.start(ctx, lab, srv, sc.route); err != nil {
			t.Fatal(err)
		}
	}
	routes := "hook"
	if sc.route == storesRoute {
		routes = "hook, stores"
	}
	checkDoctor(t, lab, bob, "after setup", "ok    agent          "+repo+": Claude Code "+sc.build.Version+" loads these team notes (route: "+routes+")")

	if _, err := alice.ask(ctx, "Save what we learned about the build as team notes."); err != nil {
		t.Fatal(err)
	}
	written := checkAliceWrote(t, alice, n)
	saveSecretNote(t, lab, alice, n)
	if err := waitFile(ctx, filepath.Join(bob.team, noteName), written); err != nil {
		t.Fatal(err)
	}
	if err := waitHook(ctx, lab, bob, n.description, alice.name); err != nil {
		t.Fatal(err)
	}
	checkServer(t, srv, alice.token, written)

	if _, err := bob.ask(ctx, "What does the team know about the build?"); err != nil {
		t.Fatal(err)
	}
	checkHook(t, bob, sc.hookFrame, n)
	if sc.route == storesRoute {
		checkRecall(t, bob, n)
	}
	checkNoSecret(t, bob, n)
	checkNoTraffic(t, alice, bob)
}

// startServer starts teammemd serve in a lab in a new temporary
// directory, all of which ends with the test.
func startServer(t *testing.T) (*proclab.Lab, *proclab.Server) {
	t.Helper()
	lab, err := proclab.New(t.TempDir(), labtest.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lab.Close(); err != nil {
			t.Error(err)
		}
	})
	srv, err := lab.StartServer(t.Context(), "server")
	if err != nil {
		t.Fatal(err)
	}
	return lab, srv
}

// saveSecretNote saves the note with the AWS key into alice's team
// directory, as her editor would after her client refused to, and waits
// until her daemon says it holds the note back.
func saveSecretNote(t *testing.T, lab *proclab.Lab, alice *user, n notes) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(alice.team, secretName), []byte(n.secretNote()), 0o644); err != nil {
		t.Fatal(err)
	}
	err := waitStatus(t.Context(), lab, alice, "hold back "+secretName, func(s daemon.RepoStatus) bool {
		for _, b := range s.Blocked {
			if b.Path == secretName && b.RuleID == scantest.AWSRule {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
}
