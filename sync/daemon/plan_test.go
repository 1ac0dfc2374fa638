package daemon

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	memsync "github.com/teammemd/teammemd/sync"
)

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// claudeProjectDir creates the project directory Claude Code keeps for the
// checkout root under home, with its team directory and one transcript
// holding lines.
func claudeProjectDir(t *testing.T, home, root string, lines ...string) string {
	t.Helper()
	team := memsync.TeamDir(home, root)
	if err := os.MkdirAll(team, 0o755); err != nil {
		t.Fatal(err)
	}
	if len(lines) > 0 {
		transcript := filepath.Join(filepath.Dir(filepath.Dir(team)), "0b5c2f7e-session.jsonl")
		if err := os.WriteFile(transcript, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return team
}

func cwdLine(t *testing.T, cwd string) string {
	data, err := json.Marshal(map[string]any{"type": "user", "cwd": cwd, "sessionId": "0b5c2f7e"})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestBuildPlanDiscoversClaudeProjects(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "claude")
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	app := filepath.Join(base, "src", "app")
	if err := os.MkdirAll(filepath.Join(app, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, app, "init", "-q")
	gitRun(t, app, "remote", "add", "origin", "git@github.com:Acme/App.git")

	// The session ran in a subdirectory; noise lines come first.
	appTeam := claudeProjectDir(t, home, app, "not json", `{"type":"summary"}`, cwdLine(t, filepath.Join(app, "pkg")))
	// A project with no transcript, and one whose transcript names a
	// directory that is not a git checkout.
	claudeProjectDir(t, home, filepath.Join(base, "src", "untracked"))
	plain := filepath.Join(base, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	claudeProjectDir(t, home, plain, cwdLine(t, plain))

	def := Defaults{Server: "http://127.0.0.1:1", ClaudeHome: home}
	plan := BuildPlan(Config{DiscoverClaudeProjects: true}, def)
	if len(plan.Specs) != 1 {
		t.Fatalf("BuildPlan() specs = %+v, want the one project that maps to a checkout", plan.Specs)
	}
	got := plan.Specs[0]
	if got.Repo != "Acme/App" || got.Dir != appTeam || got.Server != def.Server || !strings.HasPrefix(got.Source, "claude project ") {
		t.Errorf("BuildPlan() spec = %+v, want repo Acme/App in %s from a claude project", got, appTeam)
	}
	if len(plan.Skipped) != 2 {
		t.Errorf("BuildPlan() skipped = %+v, want the project without a transcript and the one outside git", plan.Skipped)
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

func TestParseTranscriptCwd(t *testing.T) {
	tests := []struct{ line, want string }{
		{`{"cwd":"/home/me/app"}`, "/home/me/app"},
		{`{"type":"user","cwd":"/home/me/app/../app/./pkg/"}`, "/home/me/app/pkg"},
		{`{"cwd":"relative/dir"}`, ""},
		{`{"cwd":""}`, ""},
		{`{"cwd":42}`, ""},
		{`{"type":"summary"}`, ""},
		{`not json`, ""},
		{``, ""},
	}
	for _, tt := range tests {
		if got := ParseTranscriptCwd([]byte(tt.line)); got != tt.want {
			t.Errorf("ParseTranscriptCwd(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func FuzzParseTranscriptCwd(f *testing.F) {
	for _, seed := range []string{
		`{"cwd":"/home/me/app"}`, `{"type":"user","cwd":"/a/../b/./c/"}`, `{"cwd":"rel"}`,
		`{"cwd":42}`, `not json`, ``, `{"cwd":"/\u0000x"}`, `[{"cwd":"/x"}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got := ParseTranscriptCwd(line)
		if got == "" {
			return
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("ParseTranscriptCwd(%q) = %q, want an absolute, clean path or nothing", line, got)
		}
		again, err := json.Marshal(map[string]string{"cwd": got})
		if err != nil {
			t.Fatal(err)
		}
		if back := ParseTranscriptCwd(again); back != got {
			t.Fatalf("ParseTranscriptCwd(%s) = %q, want %q back", again, back, got)
		}
	})
}
