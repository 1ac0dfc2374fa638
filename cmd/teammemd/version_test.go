package main

import (
	"debug/buildinfo"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "(devel)"},
		{"module version", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		{"pseudo-version", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102030405-0123456789ab+dirty"}},
			"v0.0.0-20260102030405-0123456789ab+dirty"},
		{"revision and time", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs", "git", "vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-01-02T03:04:05Z", "vcs.modified", "false")},
			"0123456789ab (2026-01-02T03:04:05Z)"},
		{"modified tree", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcs("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true")},
			"0123456789ab-dirty"},
		{"nothing known", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)"},
	}
	for _, tt := range tests {
		if got := buildVersion(tt.info); got != tt.want {
			t.Errorf("buildVersion(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A built teammemd reports the version its build info carries, not a fixed
// word, and -ldflags -X main.version still wins.
func TestBinaryVersion(t *testing.T) {
	bin := teammemdBinary(t)
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	want := "teammemd " + buildVersion(info) + "\n"
	out, err := exec.Command(bin, "version").Output()
	if err != nil || string(out) != want || strings.Contains(string(out), "dev\n") {
		t.Errorf("teammemd version = %q, %v, want %q from the build info", out, err, want)
	}
	stamped := buildTeammemd(t, "-ldflags", "-X main.version=v9.8.7-test")
	out, err = exec.Command(stamped, "--version").Output()
	if err != nil || string(out) != "teammemd v9.8.7-test\n" {
		t.Errorf("teammemd --version built with -X main.version=v9.8.7-test = %q, %v, want %q", out, err, "teammemd v9.8.7-test\n")
	}
}
