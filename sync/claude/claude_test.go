package claude_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
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
		if got := claude.SanitizePath(tc.in); got != tc.want {
			t.Errorf("SanitizePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	got := claude.SanitizePath(long)
	if !strings.HasPrefix(got, "-"+strings.Repeat("a", 199)+"-") || len(got) <= 201 {
		t.Errorf("SanitizePath(long) = %q, want 200 characters, a dash and a hash", got)
	}
	if claude.SanitizePath(long+"b") == got {
		t.Error("SanitizePath gives two long paths with one prefix the same name")
	}
}

func TestHome(t *testing.T) {
	tests := []struct {
		configDir, home string
		want            string
		wantErr         bool
	}{
		{"/etc/claude", "/home/me", "/etc/claude", false},
		{"", "/home/me", "/home/me/.claude", false},
		{"/etc/claude", "", "/etc/claude", false},
		{"", "", "", true},
	}
	for _, tt := range tests {
		t.Setenv("CLAUDE_CONFIG_DIR", tt.configDir)
		t.Setenv("HOME", tt.home)
		got, err := claude.Home()
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("Home() with CLAUDE_CONFIG_DIR=%q HOME=%q = %q, %v, want %q, error %v", tt.configDir, tt.home, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestDiscover(t *testing.T) {
	base, home := claudetest.Home(t)
	main := claudetest.Checkout(t, filepath.Join(base, "src", "app"), "git@github.com:Acme/App.git")
	if err := os.MkdirAll(filepath.Join(main, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	claudetest.Git(t, main, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(base, "wt")
	claudetest.Git(t, main, "worktree", "add", "-q", wt)
	link := filepath.Join(base, "link")
	if err := os.Symlink(main, link); err != nil {
		t.Fatal(err)
	}
	want := claude.Repo{Slug: "Acme/App", Root: main, Dir: filepath.Join(home, "projects", claude.SanitizePath(main), "memory", "team")}
	for _, from := range []string{main, filepath.Join(main, "pkg"), wt, link} {
		got, err := claude.Discover(from)
		if err != nil {
			t.Fatalf("Discover(%s): %v", from, err)
		}
		if got != want {
			t.Errorf("Discover(%s) = %+v, want %+v", from, got, want)
		}
	}
	claudetest.Git(t, main, "remote", "remove", "origin")
	if _, err := claude.Discover(main); err == nil {
		t.Error("Discover without a remote = nil error, want one")
	}
}

// DiscoverIn lays the team directory out under the config directory it is
// given, whatever CLAUDE_CONFIG_DIR says: where a client run with that
// directory looks.
func TestDiscoverIn(t *testing.T) {
	base, home := claudetest.Home(t)
	main := claudetest.Checkout(t, filepath.Join(base, "src", "app"), "https://github.com/acme/app.git")
	other := filepath.Join(base, "other-claude")
	got, err := claude.DiscoverIn(context.Background(), other, main)
	want := claude.Repo{Slug: "acme/app", Root: main, Dir: claude.TeamDir(other, main)}
	if err != nil || got != want {
		t.Errorf("DiscoverIn(%s) = %+v, %v; want %+v", other, got, err, want)
	}
	if mine, err := claude.Discover(main); err != nil || mine.Dir != claude.TeamDir(home, main) {
		t.Errorf("Discover(%s) = %+v, %v; want its team directory under %s", main, mine, err, home)
	}
}

func TestCheckoutOf(t *testing.T) {
	base, home := claudetest.Home(t)
	checkout := claudetest.Checkout(t, filepath.Join(base, "src", "app"), "git@github.com:acme/app.git")
	for _, tc := range []struct {
		dir, want string
		ok        bool
	}{
		{claude.TeamDir(home, checkout), checkout, true},
		{claude.TeamDir(home, filepath.Join(base, "gone")), "", true},
		{filepath.Join(home, "projects", "x", "memory"), "", false},
		{filepath.Join(base, "elsewhere", "team"), "", false},
	} {
		if got, ok := claude.CheckoutOf(home, tc.dir); got != tc.want || ok != tc.ok {
			t.Errorf("CheckoutOf(%s) = %q, %v; want %q, %v", tc.dir, got, ok, tc.want, tc.ok)
		}
	}
}
