package api

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// MaxSlugBytes is the longest repo slug a server accepts.
const MaxSlugBytes = 256

// MinSlugSegments and MaxSlugSegments bound the segments of a repo slug.
const (
	MinSlugSegments = 2
	MaxSlugSegments = 8
)

// ValidateSlug reports whether slug names a repo: 2 to 8 segments of
// [A-Za-z0-9._-], none of them "." or "..", at most 256 bytes. The error
// names the slug; SlugProblem says the same without it.
func ValidateSlug(slug string) error {
	problem := SlugProblem(slug)
	switch {
	case problem == "":
		return nil
	case slug == "" || len(slug) > MaxSlugBytes:
		return errors.New("repo slug " + problem)
	}
	return fmt.Errorf("repo slug %q %s", slug, problem)
}

// SlugProblem says why slug names no repo ("" when it names one) without
// naming it, for an answer or a log that must not echo what a client sent:
// a slug may hold a secret.
func SlugProblem(slug string) string {
	if slug == "" {
		return "is empty"
	}
	if len(slug) > MaxSlugBytes {
		return fmt.Sprintf("is longer than %d bytes", MaxSlugBytes)
	}
	segments := strings.Split(slug, "/")
	if len(segments) < MinSlugSegments || len(segments) > MaxSlugSegments {
		return fmt.Sprintf("must have %d to %d segments separated by /", MinSlugSegments, MaxSlugSegments)
	}
	for _, s := range segments {
		if s == "" || s == "." || s == ".." {
			return "has an empty or dot segment"
		}
		for i := 0; i < len(s); i++ {
			if !slugByte(s[i]) {
				return "may hold only letters, digits, '.', '_' and '-' in a segment"
			}
		}
	}
	return ""
}

func slugByte(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
		c == '.' || c == '_' || c == '-'
}

// SlugFromRemote derives the repo slug from a git remote URL (PROTOCOL.md
// section 7): "owner/name" on github.com, "host/path/to/name" elsewhere, with
// a trailing ".git" stripped and case kept. It accepts the SCP form
// git@host:owner/name.git and the URL form scheme://[user@]host[:port]/path.
func SlugFromRemote(remote string) (string, error) {
	host, path, err := splitRemote(strings.TrimSpace(remote))
	if err != nil {
		return "", err
	}
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	path = strings.TrimRight(path, "/")
	if path == "" {
		return "", fmt.Errorf("git remote %q names no repository path", remote)
	}
	slug := host + "/" + path
	if strings.EqualFold(host, "github.com") {
		slug = path
	}
	if err := ValidateSlug(slug); err != nil {
		return "", fmt.Errorf("git remote %q: %w", remote, err)
	}
	return slug, nil
}

func splitRemote(remote string) (host, path string, err error) {
	if remote == "" {
		return "", "", errors.New("git remote URL is empty")
	}
	if strings.Contains(remote, "://") {
		u, err := url.Parse(remote)
		if err != nil {
			return "", "", fmt.Errorf("parse git remote %q: %w", remote, err)
		}
		if u.Hostname() == "" {
			return "", "", fmt.Errorf("git remote %q has no host (local remotes have no slug)", remote)
		}
		return u.Hostname(), u.Path, nil
	}
	// SCP form: [user@]host:path, where the colon comes before any slash.
	colon := strings.IndexByte(remote, ':')
	slash := strings.IndexByte(remote, '/')
	if colon <= 0 || (slash >= 0 && slash < colon) {
		return "", "", fmt.Errorf("git remote %q is neither scheme://host/path nor host:path (local remotes have no slug)", remote)
	}
	host = remote[:colon]
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if host == "" {
		return "", "", fmt.Errorf("git remote %q has no host", remote)
	}
	return host, remote[colon+1:], nil
}
