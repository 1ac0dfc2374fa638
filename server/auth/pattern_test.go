package auth

import (
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store"
)

var matchTests = []struct {
	pattern, slug string
	want          bool
}{
	{"acme/app", "acme/app", true},
	{"acme/app", "acme/App", false},
	{"acme/app", "acme/app2", false},
	{"acme/*", "acme/app", true},
	{"acme/*", "acme/team/app", false},
	{"acme/*", "other/app", false},
	{"acme/app-*", "acme/app-web", true},
	{"acme/app-*", "acme/app-", true},
	{"acme/app-*", "acme/web-app", false},
	{"acme/*-web", "acme/app-web", true},
	{"acme/a*b*c", "acme/aXbYc", true},
	{"acme/a*b*c", "acme/aXbYcd", false},
	{"acme/**", "acme/app", true},
	{"acme/**", "acme/team/app", true},
	{"acme/**", "acme/a/b/c/d/e/f/g", true},
	{"acme/**", "acmex/app", false},
	{"acme/**", "other/acme/app", false},
	{"acme/**/app", "acme/app", true},
	{"acme/**/app", "acme/x/y/app", true},
	{"acme/**/app", "acme/x/y/web", false},
	{"**/app", "acme/app", true},
	{"**/app", "gitlab.example.com/g/app", true},
	{"**", "acme/app", true},
	{"gitlab.example.com/**", "gitlab.example.com/group/sub/app", true},
	{"gitlab.example.com/**", "github.com/group/app", false},
	{"*/*", "acme/app", true},
	{"*/*", "acme/team/app", false},
	{"**/**", "acme/app", true},
	{"acme/**/team/*", "acme/x/team/app", true},
	{"acme/**/team/*", "acme/x/team", false},
	{"", "acme/app", false},
	{"acme//app", "acme//app", false},
	{"acme/a**", "acme/abc", false},
	{"acme/*", "", false},
}

func TestMatch(t *testing.T) {
	for _, tt := range matchTests {
		if got := Match(tt.pattern, tt.slug); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.slug, got, tt.want)
		}
	}
}

var patternTests = []struct {
	pattern string
	ok      bool
}{
	{"acme/app", true},
	{"acme/*", true},
	{"acme/**", true},
	{"**", true},
	{"gitlab.example.com/g_1/app-*", true},
	{"", false},
	{"acme/", false},
	{"/acme", false},
	{"acme//app", false},
	{"acme/../app", false},
	{"acme/./app", false},
	{"acme/a**", false},
	{"acme/***", false},
	{"acme/ap p", false},
	{"acme/app,web", false},
	{"acme/\x00", false},
	{"acme/é", false},
	{strings.Repeat("a/", 20) + "a", false},
	{"a/" + strings.Repeat("b", MaxPatternBytes), false},
	// A slug has 2 to 8 segments: a pattern that matches none is refused.
	{"demo", false},
	{"*", false},
	{"demo/*", true},
	{"**/app", true},
	{"a/b/c/d/e/f/g/h", true},
	{"a/b/c/d/e/f/g/h/**", true},
	{"a/b/c/d/e/f/g/h/i/**", false},
	{"a/b/c/d/e/f/g/h/i", false},
}

func TestValidatePattern(t *testing.T) {
	for _, tt := range patternTests {
		err := ValidatePattern(tt.pattern)
		if got := err == nil; got != tt.ok {
			t.Errorf("ValidatePattern(%q) = %v, want ok %v", tt.pattern, err, tt.ok)
		}
	}
}

func TestParseGrants(t *testing.T) {
	tests := []struct {
		csv   string
		level store.Level
		want  string // patterns joined by "|", or "error"
	}{
		{"acme/*", store.LevelWrite, "acme/*"},
		{"acme/*,acme/**", store.LevelRead, "acme/*|acme/**"},
		{" acme/* , acme/** ,", store.LevelRead, "acme/*|acme/**"},
		{"acme/*,acme/*", store.LevelWrite, "acme/*"},
		{"", store.LevelWrite, "error"},
		{" , ", store.LevelWrite, "error"},
		{"acme/*,bad//x", store.LevelWrite, "error"},
		{"acme/*", store.Level("admin"), "error"},
	}
	for _, tt := range tests {
		grants, err := ParseGrants(tt.csv, tt.level)
		got := "error"
		if err == nil {
			var ps []string
			for _, g := range grants {
				if g.Level != tt.level {
					t.Errorf("ParseGrants(%q, %q) level = %q, want %q", tt.csv, tt.level, g.Level, tt.level)
				}
				ps = append(ps, g.Pattern)
			}
			got = strings.Join(ps, "|")
		}
		if got != tt.want {
			t.Errorf("ParseGrants(%q, %q) = %q (%v), want %q", tt.csv, tt.level, got, err, tt.want)
		}
	}
}

func TestAllows(t *testing.T) {
	p := Principal{Subject: "ann", Grants: []store.Grant{
		{Pattern: "acme/*", Level: store.LevelWrite},
		{Pattern: "acme/**", Level: store.LevelRead},
		{Pattern: "gitlab.example.com/**", Level: store.LevelRead},
		{Pattern: "acme/docs", Level: store.LevelReview},
	}}
	tests := []struct {
		repo  string
		level store.Level
		want  bool
	}{
		{"acme/app", store.LevelReview, false},
		{"acme/docs", store.LevelReview, true},
		{"acme/docs", store.LevelWrite, true},
		{"acme/docs", store.LevelRead, true},
		{"gitlab.example.com/g/app", store.LevelReview, false},
		{"acme/app", store.LevelWrite, true},
		{"acme/app", store.LevelRead, true},
		{"acme/team/app", store.LevelRead, true},
		{"acme/team/app", store.LevelWrite, false},
		{"gitlab.example.com/g/app", store.LevelRead, true},
		{"gitlab.example.com/g/app", store.LevelWrite, false},
		{"other/app", store.LevelRead, false},
		{"acme/app", store.Level("admin"), false},
	}
	for _, tt := range tests {
		if got := p.Allows(tt.repo, tt.level); got != tt.want {
			t.Errorf("Allows(%q, %q) = %v, want %v", tt.repo, tt.level, got, tt.want)
		}
	}
	if (Principal{}).Allows("acme/app", store.LevelRead) {
		t.Errorf("Principal{}.Allows(acme/app, read) = true, want false")
	}
}

func FuzzMatch(f *testing.F) {
	for _, tt := range matchTests {
		f.Add(tt.pattern, tt.slug)
	}
	f.Fuzz(func(t *testing.T, pattern, slug string) {
		got := Match(pattern, slug)
		if got && ValidatePattern(pattern) != nil {
			t.Fatalf("Match(%q, %q) = true for an invalid pattern", pattern, slug)
		}
		if ValidatePattern(pattern) == nil && !strings.Contains(pattern, "*") && got != (pattern == slug) {
			t.Fatalf("Match(%q, %q) = %v, want %v for a literal pattern", pattern, slug, got, pattern == slug)
		}
		if ValidatePattern(slug) == nil && !strings.Contains(slug, "*") && !Match(slug, slug) {
			t.Fatalf("Match(%q, %q) = false, want true for a slug against itself", slug, slug)
		}
		if got && ValidatePattern(pattern) == nil && !Match("**", slug) {
			t.Fatalf("Match(**, %q) = false though %q matched", slug, pattern)
		}
	})
}

func FuzzValidatePattern(f *testing.F) {
	for _, tt := range patternTests {
		f.Add(tt.pattern)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		if ValidatePattern(pattern) != nil {
			return
		}
		for _, s := range strings.Split(pattern, "/") {
			if s == "" || s == "." || s == ".." || (strings.Contains(s, "**") && s != "**") {
				t.Fatalf("ValidatePattern(%q) = nil, want an error for segment %q", pattern, s)
			}
		}
		grants, err := ParseGrants(pattern, store.LevelRead)
		if err != nil || len(grants) != 1 || grants[0].Pattern != pattern {
			t.Fatalf("ParseGrants(%q) = %v, %v, want the one pattern", pattern, grants, err)
		}
	})
}
