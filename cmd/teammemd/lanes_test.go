package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/personal"
)

// TestPersonalLanesPlanned: the daemon plans the personal lane of a Claude
// Code project beside its team repo when a key is stored for the server,
// and not when [personal] enabled is false or no key is stored.
func TestPersonalLanesPlanned(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	const server = "http://127.0.0.1:8080"
	team := daemon.Spec{Repo: "acme/app", Dir: filepath.Join(home, "projects", "-src-app", "memory", "team"), Server: server}
	plan := daemon.Plan{Specs: []daemon.Spec{team}}
	lanes := func(cfg Config) int {
		n := 0
		for _, s := range daemon.WithPersonal(plan, personalLanes(runFlags{}, cfg)).Specs {
			if s.Lane == daemon.LanePersonal {
				n++
				want := filepath.Dir(team.Dir)
				if s.Repo == personal.UserProject {
					want = home
				}
				if s.Dir != want {
					t.Errorf("personal lane %s dir = %q, want %q", s.Repo, s.Dir, want)
				}
			}
		}
		return n
	}
	if n := lanes(Config{}); n != 0 {
		t.Errorf("lanes with no key stored = %d, want 0", n)
	}
	k, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	ks := personal.NewKeyStore(filepath.Join(configDir(), "personal"), "file")
	if err := ks.Save(context.Background(), server, personal.Keys{Current: k}); err != nil {
		t.Fatal(err)
	}
	if n := lanes(Config{}); n != 1 {
		t.Errorf("lanes with a key stored = %d, want 1", n)
	}
	off := false
	if n := lanes(Config{Personal: personal.Config{Enabled: &off}}); n != 0 {
		t.Errorf("lanes with [personal] enabled = false = %d, want 0", n)
	}
	cfg := Config{Personal: personal.Config{UserFiles: true}}
	cfg.Client.Server = server
	if n := lanes(cfg); n != 2 {
		t.Errorf("lanes with user_files = %d, want the project's and ~user", n)
	}
}
