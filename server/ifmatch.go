package server

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/teammemd/teammemd/server/api"
)

// ifMatchList is the If-Match of a PUT, as RFC 9110 section 13.1.1 reads it:
// absent, which is no precondition; "*", which any state of the repo
// meets (a repo never written has the empty repo checksum); or a list of
// entity tags, which the repo meets when its checksum is one of them.
type ifMatchList struct {
	present bool
	any     bool
	// tags are the list's strong tags, quotes stripped. A weak tag never
	// matches (If-Match compares strongly), an empty one is no checksum
	// and "*" in quotes is a tag, not the wildcard.
	tags []string
}

// unmatchable is the store precondition of an If-Match none of whose tags
// can be a checksum: it is no checksum either, so the write is refused
// with 412 in its turn, after the checks that come before it.
const unmatchable = `""`

// readIfMatch reads the If-Match fields of h, each a comma-separated list;
// a tag sent without quotes is taken as it is.
func readIfMatch(h http.Header) ifMatchList {
	fields, ok := h["If-Match"]
	if !ok {
		return ifMatchList{}
	}
	m := ifMatchList{present: true}
	for _, f := range fields {
		for more := true; more; {
			var elem string
			elem, f, more = nextTag(f)
			switch tag := api.StripETag(elem); {
			case elem == "*":
				m.any = true
			case strings.HasPrefix(elem, "W/"), tag == "":
			default:
				m.tags = append(m.tags, tag)
			}
		}
	}
	return m
}

// nextTag cuts the first element off a list of entity tags: the element
// as sent (W/ and quotes kept), what follows the comma after it, and
// whether there was one. A comma inside quotes is part of the tag.
func nextTag(list string) (elem, rest string, more bool) {
	list = strings.TrimLeft(list, " \t")
	if quoted, ok := strings.CutPrefix(strings.TrimPrefix(list, "W/"), `"`); ok {
		end := strings.IndexByte(quoted, '"')
		if end < 0 {
			return list, "", false
		}
		n := len(list) - len(quoted) + end + 1
		_, rest, more = strings.Cut(list[n:], ",")
		return list[:n], rest, more
	}
	elem, rest, more = strings.Cut(list, ",")
	return strings.TrimSpace(elem), rest, more
}

// precondition is the store precondition of m for a write to repo: ""
// for none, else the tag the repo's checksum must equal. A list of
// several tags is met when any of them is the repo's checksum, which it
// reads to pick that one; the store compares again as it writes.
func (s *Server) precondition(ctx context.Context, repo string, m ifMatchList) (string, error) {
	switch {
	case !m.present || m.any:
		return "", nil
	case len(m.tags) == 0:
		return unmatchable, nil
	case len(m.tags) == 1:
		return m.tags[0], nil
	}
	snap, _, err := s.currentHashes(ctx, repo)
	if err != nil {
		return "", err
	}
	if slices.Contains(m.tags, snap.Checksum) {
		return snap.Checksum, nil
	}
	return m.tags[0], nil
}
