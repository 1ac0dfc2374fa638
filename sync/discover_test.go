package memsync

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSanitizePath(t *testing.T) {
	long := "/" + strings.Repeat("a", 250)
	tests := []struct{ in, want string }{
		{"/Users/dev/my_project", "-Users-dev-my-project"},
		{"/home/me/app.v2", "-home-me-app-v2"},
		{"C:\\src\\app", "C--src-app"},
		{"/tmp/caf\u00e9", "-tmp-caf-"},
		{"/tmp/\U0001F600", "-tmp---"},
		{"/abc", "-abc"},
	}
	for _, tc := range tests {
		if got := SanitizePath(tc.in); got != tc.want {
			t.Errorf("SanitizePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	got := SanitizePath(long)
	if !strings.HasPrefix(got, "-"+strings.Repeat("a", 199)+"-") || len(got) <= 201 {
		t.Errorf("SanitizePath(long) = %q, want 200 characters, a dash and a hash", got)
	}
	if SanitizePath(long+"b") == got {
		t.Error("SanitizePath gives two long paths with one prefix the same name")
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestDiscover(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "claude")
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	main := filepath.Join(base, "src", "app")
	must(t, os.MkdirAll(filepath.Join(main, "pkg"), 0o755))
	gitRun(t, main, "init", "-q")
	gitRun(t, main, "remote", "add", "origin", "git@github.com:Acme/App.git")
	gitRun(t, main, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(base, "wt")
	gitRun(t, main, "worktree", "add", "-q", wt)
	link := filepath.Join(base, "link")
	must(t, os.Symlink(main, link))
	want := Repo{Slug: "Acme/App", Root: main, Dir: filepath.Join(home, "projects", SanitizePath(main), "memory", "team")}
	for _, from := range []string{main, filepath.Join(main, "pkg"), wt, link} {
		got, err := Discover(from)
		if err != nil {
			t.Fatalf("Discover(%s): %v", from, err)
		}
		if got != want {
			t.Errorf("Discover(%s) = %+v, want %+v", from, got, want)
		}
	}
	gitRun(t, main, "remote", "remove", "origin")
	if _, err := Discover(main); err == nil {
		t.Error("Discover without a remote = nil error, want one")
	}
}
