package api

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDescribeClient(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name                 string
		credential, ua, host string
		want                 string
	}{
		{"daemon", "token:0a1b2c3d4e5f", "teammemd/1.4.0 (linux/amd64)", "ann-laptop",
			"token:0a1b2c3d4e5f via teammemd/1.4.0 (linux/amd64) on ann-laptop"},
		{"claude code", "claude", "claude-cli/2.1.0 (external, cli)", "", "claude via claude-cli/2.1.0 (external, cli)"},
		{"credential only", "oidc", "", "", "oidc"},
		{"nothing", "", "", "", ""},
		{"no credential", "", "curl/8.0", "box", "via curl/8.0 on box"},
		{"control characters", "github", "evil\x1b[31m\x00agent\r\nX-Injected: 1", "host\u202e\ttwo",
			"github via evil[31magent X-Injected: 1 on host two"},
		{"invalid UTF-8", "oidc", "a\xffb", "", "oidc via ab"},
		{"spaces", "oidc", "  a   b  ", " ", "oidc via a b"},
		{"long agent keeps the machine", "token:ab", long, "box",
			"token:ab via " + long[:maxAgentBytes] + " on box"},
		{"long machine", "oidc", "", long, "oidc on " + long[:maxMachineBytes]},
	}
	for _, tt := range tests {
		got := DescribeClient(tt.credential, tt.ua, tt.host)
		if got != tt.want {
			t.Errorf("%s: DescribeClient(%q, %q, %q) = %q, want %q", tt.name, tt.credential, tt.ua, tt.host, got, tt.want)
		}
	}
}

func TestCleanClientTextBounds(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"aé", 2, "a"},   // é is two bytes: never cut inside it
		{"a bc", 2, "a"}, // no space left at the end
		{"日本語", 7, "日本"},
		{"\x00\x01\x7f", 10, ""},
	}
	for _, tt := range tests {
		if got := CleanClientText(tt.in, tt.max); got != tt.want {
			t.Errorf("CleanClientText(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func FuzzDescribeClient(f *testing.F) {
	f.Add("token:ab", "teammemd/1.0 (linux/amd64)", "host")
	f.Add("claude", "evil\x1b[0m\r\n", "\u202e\xff")
	f.Fuzz(func(t *testing.T, credential, ua, host string) {
		got := DescribeClient(credential, ua, host)
		if len(got) > MaxClientBytes || !utf8.ValidString(got) {
			t.Fatalf("DescribeClient = %q: %d bytes or invalid UTF-8", got, len(got))
		}
		for _, r := range got {
			if unprintable(r) {
				t.Fatalf("DescribeClient = %q holds %U", got, r)
			}
		}
		if got != strings.TrimSpace(got) || strings.Contains(got, "  ") {
			t.Fatalf("DescribeClient = %q: stray spaces", got)
		}
	})
}
