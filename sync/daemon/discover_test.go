package daemon

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
)

// gitRepo makes a git checkout with an origin remote under base.
func gitRepo(t *testing.T, base, name, remote string) string {
	t.Helper()
	dir := filepath.Join(base, "src", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "remote", "add", "origin", remote)
	return dir
}

// A project maps back to its checkout by its name alone, with no session
// transcript, and a project that cannot sync is listed with the reason.
func TestBuildPlanResolvesProjectsWithoutTranscripts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "claude")
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	app := gitRepo(t, base, "my-app.v2", "git@github.com:acme/app.git")
	appTeam := claudeProjectDir(t, home, app) // no transcript
	// A project with no team directory, and one that is no checkout.
	lib := gitRepo(t, base, "lib", "git@github.com:acme/lib.git")
	libProject := filepath.Dir(filepath.Dir(memsync.TeamDir(home, lib)))
	if err := os.MkdirAll(libProject, 0o755); err != nil {
		t.Fatal(err)
	}
	plainProject := filepath.Join(home, "projects", memsync.SanitizePath(base))
	if err := os.MkdirAll(plainProject, 0o755); err != nil {
		t.Fatal(err)
	}

	plan := BuildPlan(Config{DiscoverClaudeProjects: true}, Defaults{Server: "http://127.0.0.1:1", ClaudeHome: home})
	if len(plan.Specs) != 1 || plan.Specs[0].Repo != "acme/app" || plan.Specs[0].Dir != appTeam {
		t.Errorf("BuildPlan() specs = %+v, want acme/app in %s", plan.Specs, appTeam)
	}
	var sources []string
	for _, s := range plan.Skipped {
		sources = append(sources, s.Source)
		if s.Reason == "" {
			t.Errorf("BuildPlan() skipped %s with no reason", s.Source)
		}
	}
	for _, want := range []string{"claude project " + libProject, "claude project " + plainProject} {
		if !slices.Contains(sources, want) {
			t.Errorf("BuildPlan() skipped %s, want %q among them", strings.Join(sources, "; "), want)
		}
	}
}

// A discovered project with no team directory yet gets one when the server
// already holds its repo (a new teammate), and is listed as skipped, with
// the reason, when it does not.
func TestBuildPlanCreatesTeamDirOfSharedRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	srv := servertest.Start(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "claude")
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	shared := gitRepo(t, base, "shared", "git@github.com:acme/shared.git")
	fresh := gitRepo(t, base, "fresh", "git@github.com:acme/fresh.git")
	for _, root := range []string{shared, fresh} {
		if err := os.MkdirAll(filepath.Dir(filepath.Dir(memsync.TeamDir(home, root))), 0o755); err != nil {
			t.Fatal(err)
		}
	}
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
	sharedTeam := memsync.TeamDir(home, shared)
	if len(plan.Specs) != 1 || plan.Specs[0].Repo != "acme/shared" || plan.Specs[0].Dir != sharedTeam {
		t.Errorf("BuildPlan() specs = %+v, want acme/shared in %s", plan.Specs, sharedTeam)
	}
	if fi, err := os.Stat(sharedTeam); err != nil || !fi.IsDir() {
		t.Errorf("team directory of acme/shared: %v, want it created", err)
	}
	if _, err := os.Stat(memsync.TeamDir(home, fresh)); err == nil {
		t.Errorf("team directory of acme/fresh created, want none: the server does not hold it")
	}
	if len(plan.Skipped) != 1 || !strings.Contains(plan.Skipped[0].Reason, "the server holds no notes for acme/fresh") {
		t.Errorf("BuildPlan() skipped = %+v, want acme/fresh with the reason", plan.Skipped)
	}
}

func TestProjectEvent(t *testing.T) {
	root := "/h/.claude/projects"
	tests := []struct {
		path string
		want bool
	}{
		{root, true},
		{root + "/-src-app", true},
		{root + "/-src-app/memory", true},
		{root + "/-src-app/memory/team", true},
		{root + "/-src-app/0b5c2f7e.jsonl", true},
		{root + "/-src-app/notes.txt", false},
		{root + "/-src-app/memory/team/MEMORY.md", false},
		{root + "/-src-app/memory/MEMORY.md", false},
		{"/h/.claude/settings.json", false},
		{"/h/.claude/projectsx", false},
	}
	for _, tt := range tests {
		if got := projectEvent(root, tt.path); got != tt.want {
			t.Errorf("projectEvent(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
