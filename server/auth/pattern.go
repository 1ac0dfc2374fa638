package auth

import (
	"errors"
	"fmt"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// MaxPatternBytes is the longest repo pattern a grant may hold.
const MaxPatternBytes = 512

// maxPatternSegments bounds the segments of a pattern; a slug has at most 8.
const maxPatternSegments = 16

// ValidatePattern reports whether pattern is a well-formed grant pattern:
// segments separated by "/", each either "**" or a run of slug characters
// ([A-Za-z0-9._-]) and "*" wildcards, none empty, "." or "..", that can
// match a repo slug of 2 to 8 segments.
func ValidatePattern(pattern string) error {
	if pattern == "" {
		return errors.New("repo pattern is empty")
	}
	if len(pattern) > MaxPatternBytes {
		return fmt.Errorf("repo pattern is longer than %d bytes", MaxPatternBytes)
	}
	segments := strings.Split(pattern, "/")
	if len(segments) > maxPatternSegments {
		return fmt.Errorf("repo pattern %q has more than %d segments", pattern, maxPatternSegments)
	}
	for _, s := range segments {
		if err := validateSegment(s); err != nil {
			return fmt.Errorf("repo pattern %q: %w", pattern, err)
		}
	}
	if !matchesSomeSlug(segments) {
		return fmt.Errorf("repo pattern %q matches no repo: a repo slug has %d to %d segments separated by / (acme/app, "+
			"gitlab.example.com/group/app); write a pattern as acme/app, acme/* or acme/**", pattern, api.MinSlugSegments, api.MaxSlugSegments)
	}
	return nil
}

// matchesSomeSlug reports whether a pattern of these segments can match a
// slug of as many segments as a slug may have: each segment but "**"
// matches exactly one, and "**" any number.
func matchesSomeSlug(segments []string) bool {
	fixed := 0
	for _, s := range segments {
		if s != "**" {
			fixed++
		}
	}
	globstar := fixed < len(segments)
	return fixed <= api.MaxSlugSegments && (fixed >= api.MinSlugSegments || globstar)
}

func validateSegment(s string) error {
	switch {
	case s == "":
		return errors.New("empty segment")
	case s == "." || s == "..":
		return errors.New("dot segment")
	case s == "**":
		return nil
	case strings.Contains(s, "**"):
		return errors.New(`"**" must be a whole segment`)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '*' && !slugByte(c) {
			return errors.New("a segment may hold only letters, digits, '.', '_', '-' and '*'")
		}
	}
	return nil
}

func slugByte(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
		c == '.' || c == '_' || c == '-'
}

// Match reports whether a grant pattern covers a repo slug. Matching is
// case-sensitive and by segment: "*" matches any run of characters within one
// segment ("acme/*", "acme/app-*"), and "**" as a whole segment matches zero
// or more segments, so "acme/**" covers "acme/app" and "acme/team/app", and
// "acme/**/app" covers "acme/app" too. A malformed pattern matches nothing.
func Match(pattern, slug string) bool {
	if ValidatePattern(pattern) != nil || slug == "" {
		return false
	}
	return matchSegments(strings.Split(pattern, "/"), strings.Split(slug, "/"))
}

// matchSegments matches pattern segments against slug segments with dynamic
// programming, so patterns with several "**" stay linear in each dimension.
// can[j] reports whether the pattern prefix seen so far matches slug[:j].
func matchSegments(pat, slug []string) bool {
	can := make([]bool, len(slug)+1)
	next := make([]bool, len(slug)+1)
	can[0] = true
	for _, p := range pat {
		clear(next)
		if p == "**" {
			reached := false
			for j := range can {
				reached = reached || can[j]
				next[j] = reached
			}
		} else {
			for j := 1; j <= len(slug); j++ {
				next[j] = can[j-1] && matchSegment(p, slug[j-1])
			}
		}
		can, next = next, can
	}
	return can[len(slug)]
}

// matchSegment matches one segment against a pattern in which "*" stands for
// any run of characters, backtracking only to the last star (linear time).
func matchSegment(p, s string) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// ParseGrants parses a comma-separated list of repo patterns into grants at
// level. Spaces around patterns are ignored and duplicates dropped; an empty
// list is an error.
func ParseGrants(csv string, level store.Level) ([]store.Grant, error) {
	if !ValidLevel(level) {
		return nil, fmt.Errorf("unknown access level %q", level)
	}
	var grants []store.Grant
	seen := map[string]bool{}
	for _, p := range strings.Split(csv, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if err := ValidatePattern(p); err != nil {
			return nil, err
		}
		if !seen[p] {
			seen[p] = true
			grants = append(grants, store.Grant{Pattern: p, Level: level})
		}
	}
	if len(grants) == 0 {
		return nil, errors.New("no repo patterns given")
	}
	return grants, nil
}

// ValidLevel reports whether level is one a grant may give.
func ValidLevel(level store.Level) bool {
	return level == store.LevelRead || level == store.LevelWrite || level == store.LevelReview
}
