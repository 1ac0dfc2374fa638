package claude_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

// Projects maps a project to its checkout through a session transcript (a
// session run in a subdirectory, after lines with no cwd) or through its
// name alone, reports a project whose team directory does not exist yet,
// and lists, with the reason, those that map to no checkout.
func TestProjects(t *testing.T) {
	base, home := claudetest.Home(t)
	if _, unmapped, err := claude.Projects(home); err != nil || len(unmapped) != 0 {
		t.Fatalf("Projects(no projects directory) = %v, %v, want nothing", unmapped, err)
	}
	app := claudetest.Checkout(t, filepath.Join(base, "src", "app"), "git@github.com:Acme/App.git")
	if err := os.MkdirAll(filepath.Join(app, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	appTeam := claudetest.ProjectDir(t, home, app, "not json", `{"type":"summary"}`, claudetest.CwdLine(t, filepath.Join(app, "pkg")))
	named := claudetest.Checkout(t, filepath.Join(base, "src", "my-app.v2"), "git@github.com:acme/named.git")
	namedTeam := claudetest.ProjectDir(t, home, named) // no transcript
	lib := claudetest.Checkout(t, filepath.Join(base, "src", "lib"), "git@github.com:acme/lib.git")
	libTeam := claude.TeamDir(home, lib)
	if err := os.MkdirAll(filepath.Dir(filepath.Dir(libTeam)), 0o755); err != nil { // no team directory
		t.Fatal(err)
	}
	// No such directory and no transcript; a transcript naming a directory
	// outside git.
	untracked := projectOf(claudetest.ProjectDir(t, home, filepath.Join(base, "src", "untracked")))
	plain := filepath.Join(base, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	plainProject := projectOf(claudetest.ProjectDir(t, home, plain, claudetest.CwdLine(t, plain)))
	if err := os.WriteFile(filepath.Join(home, "projects", "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	projects, unmapped, err := claude.Projects(home)
	if err != nil {
		t.Fatalf("Projects() error: %v", err)
	}
	want := map[string]claude.Project{
		projectOf(appTeam):   {Dir: projectOf(appTeam), Repo: claude.Repo{Slug: "Acme/App", Root: app, Dir: appTeam}, TeamExists: true},
		projectOf(namedTeam): {Dir: projectOf(namedTeam), Repo: claude.Repo{Slug: "acme/named", Root: named, Dir: namedTeam}, TeamExists: true},
		projectOf(libTeam):   {Dir: projectOf(libTeam), Repo: claude.Repo{Slug: "acme/lib", Root: lib, Dir: libTeam}},
	}
	for _, p := range projects {
		if p != want[p.Dir] {
			t.Errorf("Projects() found %+v, want %+v", p, want[p.Dir])
		}
	}
	if len(projects) != len(want) {
		t.Errorf("Projects() found %d projects, want %d: %+v", len(projects), len(want), projects)
	}
	var dirs []string
	for _, u := range unmapped {
		dirs = append(dirs, u.Dir)
		if u.Err == nil {
			t.Errorf("Projects() left %s unmapped with no reason", u.Dir)
		}
	}
	if slices.Sort(dirs); !slices.Equal(dirs, []string{plainProject, untracked}) {
		t.Errorf("Projects() unmapped %q, want %q", dirs, []string{plainProject, untracked})
	}
}

// projectOf is the project directory of a team directory.
func projectOf(team string) string { return filepath.Dir(filepath.Dir(team)) }

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
		if got := claude.ParseTranscriptCwd([]byte(tt.line)); got != tt.want {
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
		got := claude.ParseTranscriptCwd(line)
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
		if back := claude.ParseTranscriptCwd(again); back != got {
			t.Fatalf("ParseTranscriptCwd(%s) = %q, want %q back", again, back, got)
		}
	})
}
