package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

// Discovered projects become specs with the [client] defaults; one that
// maps to no repo, or whose team directory does not exist while no server
// can be asked, is skipped with the reason; a configured repo on the same
// directory wins.
func TestBuildPlanDiscoversClaudeProjects(t *testing.T) {
	base, home := claudetest.Home(t)
	app := claudetest.Checkout(t, filepath.Join(base, "src", "app"), "git@github.com:Acme/App.git")
	appTeam := claudetest.ProjectDir(t, home, app, claudetest.CwdLine(t, app))
	lib := claudetest.Checkout(t, filepath.Join(base, "src", "lib"), "git@github.com:acme/lib.git")
	libProject := filepath.Dir(filepath.Dir(claude.TeamDir(home, lib)))
	if err := os.MkdirAll(libProject, 0o755); err != nil {
		t.Fatal(err)
	}
	plainProject := filepath.Join(home, "projects", claude.SanitizePath(base))
	if err := os.MkdirAll(plainProject, 0o755); err != nil {
		t.Fatal(err)
	}

	def := Defaults{Server: "http://127.0.0.1:1", ClaudeHome: home}
	plan := BuildPlan(Config{DiscoverClaudeProjects: true}, def)
	if len(plan.Specs) != 1 {
		t.Fatalf("BuildPlan() specs = %+v, want the one project that maps to a checkout", plan.Specs)
	}
	got := plan.Specs[0]
	if got.Repo != "Acme/App" || got.Dir != appTeam || got.Server != def.Server || !strings.HasPrefix(got.Source, "claude project ") {
		t.Errorf("BuildPlan() spec = %+v, want repo Acme/App in %s from a claude project", got, appTeam)
	}
	var sources []string
	for _, s := range plan.Skipped {
		sources = append(sources, s.Source)
		if s.Reason == "" {
			t.Errorf("BuildPlan() skipped %s with no reason", s.Source)
		}
	}
	if want := []string{"claude project " + libProject, "claude project " + plainProject}; !slices.Equal(sorted(sources), sorted(want)) {
		t.Errorf("BuildPlan() skipped %q, want %q", sources, want)
	}

	// A configured repo on the same directory wins over the discovered one.
	cfg := Config{DiscoverClaudeProjects: true, Repos: []RepoConfig{{Dir: appTeam, Repo: "acme/override"}}}
	plan = BuildPlan(cfg, def)
	if len(plan.Specs) != 1 || plan.Specs[0].Repo != "acme/override" {
		t.Errorf("BuildPlan(configured and discovered) = %+v, want only acme/override", plan.Specs)
	}
	// Discovery off: nothing found.
	if plan := BuildPlan(Config{}, def); len(plan.Specs)+len(plan.Skipped) != 0 {
		t.Errorf("BuildPlan(discovery off) = %+v, want nothing", plan)
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// A discovered project with no team directory yet gets one when the server
// already holds its repo (a new teammate), and is listed as skipped, with
// the reason, when it does not.
func TestBuildPlanCreatesTeamDirOfSharedRepo(t *testing.T) {
	base, home := claudetest.Home(t)
	shared := claudetest.Checkout(t, filepath.Join(base, "src", "shared"), "git@github.com:acme/shared.git")
	fresh := claudetest.Checkout(t, filepath.Join(base, "src", "fresh"), "git@github.com:acme/fresh.git")
	for _, root := range []string{shared, fresh} {
		if err := os.MkdirAll(filepath.Dir(filepath.Dir(claude.TeamDir(home, root))), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv := servertest.Start(t)
	client, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Put(context.Background(), "acme/shared", "", []byte(`{"entries":{"MEMORY.md":"# shared\n"}}`)); err != nil {
		t.Fatal(err)
	}
	def := Defaults{Server: srv.URL, ClaudeHome: home, HasRepo: func(s Spec) (bool, error) {
		return HasRepo(context.Background(), client, s.Repo)
	}}
	plan := BuildPlan(Config{DiscoverClaudeProjects: true}, def)
	sharedTeam := claude.TeamDir(home, shared)
	if len(plan.Specs) != 1 || plan.Specs[0].Repo != "acme/shared" || plan.Specs[0].Dir != sharedTeam {
		t.Errorf("BuildPlan() specs = %+v, want acme/shared in %s", plan.Specs, sharedTeam)
	}
	if fi, err := os.Stat(sharedTeam); err != nil || !fi.IsDir() {
		t.Errorf("team directory of acme/shared: %v, want it created", err)
	}
	if _, err := os.Stat(claude.TeamDir(home, fresh)); err == nil {
		t.Errorf("team directory of acme/fresh created, want none: the server does not hold it")
	}
	if len(plan.Skipped) != 1 || !strings.Contains(plan.Skipped[0].Reason, "the server holds no notes for acme/fresh") {
		t.Errorf("BuildPlan() skipped = %+v, want acme/fresh with the reason", plan.Skipped)
	}
	if plan.Skipped[0].AskAgain() {
		t.Errorf("acme/fresh, which the server answered about, is to be asked again")
	}

	// A server that cannot be asked leaves the project out to be asked
	// again, and makes no directory.
	def.HasRepo = func(Spec) (bool, error) { return false, errors.New("connection refused") }
	if err := os.Remove(sharedTeam); err != nil {
		t.Fatal(err)
	}
	plan = BuildPlan(Config{DiscoverClaudeProjects: true}, def)
	if len(plan.Specs) != 0 || len(plan.Skipped) != 2 {
		t.Fatalf("BuildPlan(server not asked) = %+v, want both projects skipped", plan)
	}
	for _, sk := range plan.Skipped {
		if !sk.AskAgain() || !strings.Contains(sk.Reason, "connection refused") || !strings.Contains(sk.Reason, "asked again every 10s") {
			t.Errorf("BuildPlan(server not asked) skipped %+v, want it asked again, with the reason", sk)
		}
	}
	if _, err := os.Stat(sharedTeam); err == nil {
		t.Errorf("team directory of acme/shared created though the server could not be asked")
	}
}

// TestSpecFor: the spec of a checkout's team directory is a configured
// repo's on the same directory, with its own server or the default, else
// the checkout's own slug with the defaults.
func TestSpecFor(t *testing.T) {
	base, home := claudetest.Home(t)
	app := claudetest.Checkout(t, filepath.Join(base, "src", "app"), "git@github.com:acme/app.git")
	r, err := claude.Discover(app)
	if err != nil {
		t.Fatal(err)
	}
	other := claudetest.Checkout(t, filepath.Join(base, "src", "other"), "git@github.com:acme/other.git")
	def := Defaults{Server: "https://default.example.com", TokenFile: "/t/default"}
	tests := []struct {
		name               string
		repos              []RepoConfig
		repo, server, file string
	}{
		{"nothing configured", nil, "acme/app", def.Server, def.TokenFile},
		{"a directory with a slug of its own", []RepoConfig{{Dir: r.Dir, Repo: "acme/renamed"}}, "acme/renamed", def.Server, def.TokenFile},
		{"a directory with a server of its own", []RepoConfig{{Dir: r.Dir, Repo: "acme/app", Server: "https://own.example.com"}}, "acme/app", "https://own.example.com", def.TokenFile},
		{"the checkout with a server of its own", []RepoConfig{{Checkout: app, Server: "https://own.example.com", TokenFile: "/t/own"}}, "acme/app", "https://own.example.com", "/t/own"},
		{"another checkout with a server of its own", []RepoConfig{{Checkout: other, Server: "https://own.example.com"}}, "acme/app", def.Server, def.TokenFile},
		{"another directory", []RepoConfig{{Dir: filepath.Join(home, "elsewhere"), Repo: "acme/else", Server: "https://own.example.com"}}, "acme/app", def.Server, def.TokenFile},
		{"the first match wins", []RepoConfig{{Dir: r.Dir, Repo: "acme/first"}, {Dir: r.Dir, Repo: "acme/second"}}, "acme/first", def.Server, def.TokenFile},
	}
	for _, tt := range tests {
		got := SpecFor(Config{Repos: tt.repos}, def, r)
		if got.Repo != tt.repo || got.Server != tt.server || got.TokenFile != tt.file || got.Dir != r.Dir {
			t.Errorf("SpecFor(%s) = %+v, want %s on %s with %s in %s", tt.name, got, tt.repo, tt.server, tt.file, r.Dir)
		}
	}
}

// LocalSpecs lists what is on disk with or without a server, each
// directory once, where BuildPlan skips a repo with no server.
func TestLocalSpecsNeedNoServer(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	cfg := Config{Repos: []RepoConfig{{Dir: a, Repo: "acme/a"}, {Dir: b, Repo: "acme/b"}, {Dir: a, Repo: "acme/again"}}}
	specs := LocalSpecs(cfg, Defaults{})
	if len(specs) != 2 || specs[0].Dir != a || specs[0].Repo != "acme/a" || specs[1].Dir != b {
		t.Errorf("LocalSpecs(two dirs, one twice, no server) = %+v, want acme/a in %s and acme/b in %s", specs, a, b)
	}
	if p := BuildPlan(cfg, Defaults{}); len(p.Specs) != 0 {
		t.Errorf("BuildPlan(no server) runs %+v, want nothing", p.Specs)
	}
}
