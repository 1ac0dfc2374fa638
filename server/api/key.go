package api

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ValidateKey reports whether key is a safe entry key under PROTOCOL.md
// section 8, with the key limits of lim. The error is a 400 invalid_key
// *Error naming the rule the key breaks.
func ValidateKey(key string, lim Limits) error {
	if reason := keyProblem(key, lim); reason != "" {
		return NewError(http.StatusBadRequest, CodeInvalidKey, "invalid key: "+reason).With("key", key)
	}
	return nil
}

// KeyProblem names the rule of PROTOCOL.md section 8 key breaks, with the
// key limits of lim, "" when it breaks none: ValidateKey's reason, for a
// client that words it for its user.
func KeyProblem(key string, lim Limits) string { return keyProblem(key, lim) }

func keyProblem(key string, lim Limits) string {
	maxBytes, maxSegments := lim.KeyLimits()
	switch {
	case key == "" || key == ".":
		return "empty"
	case !utf8.ValidString(key):
		return "not valid UTF-8"
	case len(key) > maxBytes:
		return fmt.Sprintf("longer than %d bytes", maxBytes)
	case strings.ContainsFunc(key, unicode.IsControl):
		return "contains a control character"
	case strings.ContainsRune(key, '\\'):
		return "contains a backslash"
	case key[0] == '/':
		return "absolute path"
	case hasDriveLetter(key):
		return "starts with a drive letter"
	}
	segments := strings.Split(key, "/")
	if len(segments) > maxSegments {
		return fmt.Sprintf("more than %d path segments", maxSegments)
	}
	for _, s := range segments {
		if reason := segmentProblem(s); reason != "" {
			return reason
		}
	}
	if decoded := urlDecodeAll(key); decoded != key && introducesTraversal(key, decoded) {
		return "URL-decodes to a path traversal"
	}
	if folded := norm.NFKC.String(key); folded != key && introducesTraversal(key, folded) {
		return "normalises (NFKC) to a path traversal"
	}
	return ""
}

func segmentProblem(s string) string {
	switch {
	case s == "":
		return "empty path segment"
	case s == "." || s == "..":
		return "dot path segment"
	case strings.HasSuffix(s, "."), strings.HasSuffix(s, " "):
		return "path segment ends in a dot or a space"
	}
	return ""
}

func hasDriveLetter(key string) bool {
	if len(key) < 2 || key[1] != ':' {
		return false
	}
	c := key[0]
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// urlDecodeAll decodes key until it no longer changes (at most four rounds,
// which unwraps double and triple encoding).
func urlDecodeAll(key string) string {
	for range 4 {
		next, err := url.PathUnescape(key)
		if err != nil || next == key {
			return key
		}
		key = next
	}
	return key
}

// introducesTraversal reports whether a transformed form of key holds a
// separator or a dot-dot that key itself did not.
func introducesTraversal(key, transformed string) bool {
	return strings.Count(transformed, "/") > strings.Count(key, "/") ||
		strings.Count(transformed, "..") > strings.Count(key, "..") ||
		strings.ContainsRune(transformed, '\\')
}

// IsHiddenKey reports whether any segment of key starts with a dot. Such keys
// are legal on the wire, but the daemon never pushes or writes them.
func IsHiddenKey(key string) bool {
	for s := range strings.SplitSeq(key, "/") {
		if strings.HasPrefix(s, ".") {
			return true
		}
	}
	return false
}

// IsSyncableKey reports whether the daemon syncs a file with this key: not
// hidden, and named *.md or *.txt.
func IsSyncableKey(key string) bool {
	return !IsHiddenKey(key) && (strings.HasSuffix(key, ".md") || strings.HasSuffix(key, ".txt"))
}
