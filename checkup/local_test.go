package checkup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
}

func TestTeamDir(t *testing.T) {
	root := t.TempDir()
	mkdir(t, filepath.Join(root, "ok"), 0o700)
	mkdir(t, filepath.Join(root, "open"), 0o777)
	if err := os.WriteFile(filepath.Join(root, "file"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, outcome, detail, fix string
	}{
		{"ok", OK, "", ""},
		{"new/team", OK, "(created at the first sync)", ""},
		{"open", Fail, "writable by other users (mode 0777)", "chmod go-w "},
		{"file", Fail, "is not a directory", "move that file away"},
		{"file/team", Fail, "not a directory", "check the permissions of "},
	}
	for _, tt := range tests {
		dir := filepath.Join(root, tt.dir)
		r := TeamDir(dir)
		if r.Outcome != tt.outcome || !strings.Contains(r.Detail, dir) || !strings.Contains(r.Detail, tt.detail) || !strings.Contains(r.Fix, tt.fix) {
			t.Errorf("TeamDir(%s) = %+v, want %s, detail with %q, fix with %q", tt.dir, r, tt.outcome, tt.detail, tt.fix)
		}
	}
}

// A team directory that cannot be created, under a directory this user
// may not write, fails with the mkdir that makes it.
func TestTeamDirUnwritableParent(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes any directory")
	}
	parent := filepath.Join(t.TempDir(), "locked")
	mkdir(t, parent, 0o500)
	dir := filepath.Join(parent, "team")
	if r := TeamDir(dir); r.Outcome != Fail || r.Fix != "mkdir -p "+dir {
		t.Errorf("TeamDir(%s) = %+v, want a failure fixed by mkdir -p", dir, r)
	}
}

func TestInotify(t *testing.T) {
	team := t.TempDir()
	mkdir(t, filepath.Join(team, "a", "b"), 0o700)
	limits := func(watches, instances string) string {
		dir := t.TempDir()
		for name, v := range map[string]string{"max_user_watches": watches, "max_user_instances": instances} {
			if v == "" {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	missing := filepath.Join(t.TempDir(), "missing")
	tests := []struct {
		name, sys string
		dirs      []string
		outcome   string
		detail    string
	}{
		{"not Linux", "", []string{team}, Skip, "not Linux"},
		{"room", limits("8192", "128"), []string{team}, OK, "max_user_watches 8192, max_user_instances 128; the team directories need 3 watches"},
		{"one watch", limits("8192", "128"), []string{missing}, OK, "need 1 watch"},
		{"few watches", limits("1026", "128"), []string{team}, Fail, "max_user_watches is 1026; the team directories need 3 of them"},
		{"few instances", limits("8192", "9"), []string{team, missing}, Fail, "max_user_instances is 9; the daemon needs one per repo (2)"},
		{"unreadable", limits("8192", ""), []string{team}, Fail, "cannot read the limits"},
		{"not a number", limits("many", "128"), []string{team}, Fail, "max_user_watches: strconv.Atoi"},
	}
	for _, tt := range tests {
		r := Inotify(tt.sys, tt.dirs)
		if r.Outcome != tt.outcome || !strings.Contains(r.Detail, tt.detail) || (r.Outcome == Fail) != (r.Fix != "") {
			t.Errorf("%s: Inotify() = %+v, want %s with %q and a fix for a failure", tt.name, r, tt.outcome, tt.detail)
		}
	}
}

func TestClock(t *testing.T) {
	server := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		now, server time.Time
		outcome     string
		detail      string
	}{
		{server, time.Time{}, Skip, "needs the server's Date"},
		{server.Add(59 * time.Second), server, OK, "within 1m0s of the server's"},
		{server.Add(-time.Minute), server, OK, "within 1m0s"},
		{server.Add(90 * time.Second), server, Fail, "this machine's clock is 1m30s off the server's"},
		{server.Add(-2 * time.Hour), server, Fail, "-2h0m0s off"},
	}
	for _, tt := range tests {
		r := Clock(tt.now, tt.server)
		if r.Outcome != tt.outcome || !strings.Contains(r.Detail, tt.detail) {
			t.Errorf("Clock(%s, %s) = %+v, want %s with %q", tt.now, tt.server, r, tt.outcome, tt.detail)
		}
	}
}
