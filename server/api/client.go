package api

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// HeaderClient is the request header in which a client names the machine
// it runs on (extension): teammemd's daemon sends its host name. The
// server records it in history as the client claims it, never as proof.
const HeaderClient = "Teammemd-Client"

// ClientRedacted stands, in a client description, for a part the client
// claimed (its User-Agent, its machine) in which the server's secret scan
// found a secret: the part is never recorded as sent.
const ClientRedacted = "[redacted]"

// Bounds of a revision's client description (PROTOCOL.md section 10).
const (
	// MaxClientBytes bounds the whole description.
	MaxClientBytes = 200
	// maxAgentBytes and maxMachineBytes bound the parts the client claims,
	// so that a long User-Agent never crowds out the machine.
	maxAgentBytes   = 100
	maxMachineBytes = 64
)

// DescribeClient returns the client description a server records with a
// revision: the credential the server verified ("token:<id>", "oidc",
// "github" or "claude"), then "via" the User-Agent and "on" the machine
// the client named, each part left out when empty. The parts the client
// claims are cleaned (see CleanClientText) and cut to their bounds first,
// and the whole to MaxClientBytes, so any input gives a short line of
// printable text.
func DescribeClient(credential, userAgent, machine string) string {
	parts := []string{}
	if c := CleanClientText(credential, MaxClientBytes); c != "" {
		parts = append(parts, c)
	}
	if ua := CleanClientText(userAgent, maxAgentBytes); ua != "" {
		parts = append(parts, "via", ua)
	}
	if m := CleanClientText(machine, maxMachineBytes); m != "" {
		parts = append(parts, "on", m)
	}
	return CleanClientText(strings.Join(parts, " "), MaxClientBytes)
}

// CleanClientText makes s safe to store and show: every run of white
// space (tabs and line breaks too) made one space, none at either end,
// invalid UTF-8 and every other rune a terminal may act on (control and
// bidirectional characters) dropped, and cut at a rune boundary to at most
// max bytes.
func CleanClientText(s string, max int) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "") {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unprintable(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return cutAtRune(b.String(), max)
}

// cutAtRune returns the longest start of s of at most max bytes that ends
// at a rune boundary.
func cutAtRune(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[:max]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return strings.TrimRight(s, " ")
}
