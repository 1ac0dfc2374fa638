package postgres

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// redactedPassword stands in for a password in a connection string shown
// to anyone.
const redactedPassword = "xxxxx"

// IsURL reports whether s is a PostgreSQL connection URL (postgres:// or
// postgresql://), the form teammemd accepts for its store.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact returns connString with every password in it (the URL's user info,
// a password= or sslpassword= parameter, the keyword/value form) replaced by
// xxxxx.
func Redact(connString string) string {
	u, err := url.Parse(connString)
	if err != nil || !IsURL(connString) {
		return scrub(connString, connString)
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), redactedPassword)
	}
	q := u.Query()
	for _, name := range []string{"password", "sslpassword"} {
		if q.Has(name) {
			q.Set(name, redactedPassword)
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// RedactError returns err's message with every password of connString
// replaced by xxxxx, as an error that still wraps err.
func RedactError(err error, connString string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := scrub(msg, connString)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Patterns of the places a password may sit in a connection string, each
// with the password as its first group.
var (
	urlPassword     = regexp.MustCompile(`://[^:/@?#]*:([^@/?#]*)@`)
	looseURLPass    = regexp.MustCompile(`://[^:/]*:(.*)@`)
	paramPassword   = regexp.MustCompile(`(?i)\b(?:ssl)?password=([^&\s]*)`)
	keywordPassword = regexp.MustCompile(`(?i)\b(?:ssl)?password\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&]*)`)
)

// scrub replaces in s every password found in connString, raw, unquoted
// and percent-decoded, and every keyword/value password left in s.
func scrub(s, connString string) string {
	for _, secret := range passwords(connString) {
		s = strings.ReplaceAll(s, secret, redactedPassword)
	}
	return keywordPassword.ReplaceAllStringFunc(s, func(m string) string {
		i := strings.IndexByte(m, '=')
		if replaced(strings.TrimSpace(m[i+1:])) {
			return m
		}
		return m[:i+1] + redactedPassword
	})
}

// replaced reports whether v, a keyword's value as keywordPassword found
// it, is a password the first pass already replaced, followed at most by
// the punctuation of the message around it (the colon of "password=pw:
// begin"), which is kept.
func replaced(v string) bool {
	rest, ok := strings.CutPrefix(v, redactedPassword)
	return ok && strings.Trim(rest, ":;,.)]") == ""
}

// passwords returns the password values in connString, in every spelling
// they could be echoed in, longest first so a shorter one never leaves a
// longer one half replaced.
func passwords(connString string) []string {
	var found []string
	add := func(v string) {
		v = strings.Trim(v, "'")
		if v == "" || v == redactedPassword {
			return
		}
		found = append(found, v)
		if dec, err := url.PathUnescape(v); err == nil && dec != v {
			found = append(found, dec)
		}
	}
	for _, re := range []*regexp.Regexp{urlPassword, looseURLPass, paramPassword, keywordPassword} {
		for _, m := range re.FindAllStringSubmatch(connString, -1) {
			add(m[1])
		}
	}
	slices.SortFunc(found, func(a, b string) int { return len(b) - len(a) })
	return found
}
