package api

import (
	"strings"
	"testing"
)

var slugCases = []struct {
	slug string
	ok   bool
}{
	{"acme/app", true},
	{"Acme/App.js", true},
	{"gitlab.example.com/group/sub/app", true},
	{"a/b/c/d/e/f/g/h", true},
	{"a/b/c/d/e/f/g/h/i", false},
	{"app", false},
	{"", false},
	{"acme/", false},
	{"/acme/app", false},
	{"acme//app", false},
	{"acme/..", false},
	{"./app", false},
	{"acme/app name", false},
	{"acme/app%2f", false},
	{"acme/äpp", false},
	{"acme/" + strings.Repeat("a", 251), true},
	{"acme/" + strings.Repeat("a", 252), false},
}

func TestValidateSlug(t *testing.T) {
	for _, tc := range slugCases {
		err := ValidateSlug(tc.slug)
		if got := err == nil; got != tc.ok {
			t.Errorf("ValidateSlug(%q) = %v, want ok=%v", tc.slug, err, tc.ok)
		}
		problem := SlugProblem(tc.slug)
		if (problem == "") != tc.ok || err != nil && !strings.HasSuffix(err.Error(), problem) {
			t.Errorf("SlugProblem(%q) = %q, want what ValidateSlug says (%v)", tc.slug, problem, err)
		}
		if len(tc.slug) > 3 && strings.Contains(problem, tc.slug) {
			t.Errorf("SlugProblem(%q) = %q, names the slug", tc.slug, problem)
		}
	}
}

var remoteCases = []struct {
	remote, slug string
}{
	{"git@github.com:acme/app.git", "acme/app"},
	{"git@github.com:acme/app", "acme/app"},
	{"https://github.com/acme/app.git", "acme/app"},
	{"https://github.com/Acme/App", "Acme/App"},
	{"https://user@github.com/acme/app.git/", "acme/app"},
	{"ssh://git@github.com/acme/app.git", "acme/app"},
	{"ssh://git@github.com:22/acme/app.git", "acme/app"},
	{"git@gitlab.example.com:group/sub/app.git", "gitlab.example.com/group/sub/app"},
	{"https://gitlab.example.com:8443/group/app.git", "gitlab.example.com/group/app"},
	{"ssh://git@git.example.org:2222/team/app", "git.example.org/team/app"},
	{"github.com:acme/app.git", "acme/app"},
	{"", ""},
	{"/srv/git/app.git", ""},
	{"file:///srv/git/app.git", ""},
	{"git@github.com:", ""},
	{"git@github.com:app.git", ""},
	{"https://github.com/", ""},
	{"https://github.com/acme/app name.git", ""},
}

func TestSlugFromRemote(t *testing.T) {
	for _, tc := range remoteCases {
		got, err := SlugFromRemote(tc.remote)
		if tc.slug == "" {
			if err == nil {
				t.Errorf("SlugFromRemote(%q) = %q, want an error", tc.remote, got)
			}
			continue
		}
		if err != nil || got != tc.slug {
			t.Errorf("SlugFromRemote(%q) = %q, %v, want %q", tc.remote, got, err, tc.slug)
		}
	}
}

func FuzzSlugFromRemote(f *testing.F) {
	for _, tc := range remoteCases {
		f.Add(tc.remote)
	}
	f.Fuzz(func(t *testing.T, remote string) {
		slug, err := SlugFromRemote(remote)
		if err != nil {
			return
		}
		if err := ValidateSlug(slug); err != nil {
			t.Fatalf("SlugFromRemote(%q) = %q, which ValidateSlug rejects: %v", remote, slug, err)
		}
	})
}

func FuzzValidateSlug(f *testing.F) {
	for _, tc := range slugCases {
		f.Add(tc.slug)
	}
	f.Fuzz(func(t *testing.T, slug string) {
		if ValidateSlug(slug) != nil {
			return
		}
		segs := strings.Split(slug, "/")
		if len(segs) < 2 || len(segs) > 8 || len(slug) > MaxSlugBytes {
			t.Fatalf("ValidateSlug(%q) accepted %d segments, %d bytes", slug, len(segs), len(slug))
		}
		for _, s := range segs {
			if s == "" || s == "." || s == ".." {
				t.Fatalf("ValidateSlug(%q) accepted segment %q", slug, s)
			}
		}
	})
}
