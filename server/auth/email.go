package auth

import (
	"errors"
	"strings"
)

// splitEmail splits a single well-formed address into its local part and
// domain: exactly one "@", neither side empty, and no space, control
// character or the specials ("<>()[],;:\ and the quote) that would make it
// a list of addresses or a quoted one. "mallory@evil.com@acme.com" is not
// one address at acme.com.
func splitEmail(s string) (local, domain string, ok bool) {
	local, domain, found := strings.Cut(s, "@")
	if !found || local == "" || domain == "" || strings.Contains(domain, "@") {
		return "", "", false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || strings.ContainsRune(`"<>()[],;:\`, r) {
			return "", "", false
		}
	}
	return local, domain, true
}

// validateEmailPattern checks an email grant's value: one address whose
// local part may hold "*" wildcards and whose domain is written out.
func validateEmailPattern(p string) error {
	_, domain, ok := splitEmail(p)
	switch {
	case !ok:
		return errors.New("an email subject must be one address with one @, e.g. email:*@acme.com or email:alice@acme.com")
	case strings.Contains(domain, "*"):
		return errors.New("an email subject's domain must be written out: a wildcard matches only in the part before @")
	}
	return nil
}

// matchEmail reports whether email, a single well-formed address, matches
// pattern: the local part with "*" wildcards, the domain exactly, both
// ignoring case.
func matchEmail(pattern, email string) bool {
	pl, pd, ok := splitEmail(pattern)
	if !ok {
		return false
	}
	el, ed, ok := splitEmail(email)
	return ok && strings.EqualFold(pd, ed) && matchSegment(strings.ToLower(pl), strings.ToLower(el))
}
