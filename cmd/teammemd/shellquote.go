package main

import "strings"

// shellQuote returns s as one POSIX shell word: unchanged when it holds only
// characters no shell treats specially, else in single quotes, each single
// quote inside closed, escaped and reopened.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, shellSafe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellSafe lists the characters a word may hold and still need no quotes.
const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-"

// shellJoin writes args as a command line a POSIX shell splits back into
// args.
func shellJoin(args ...string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = shellQuote(a)
	}
	return strings.Join(words, " ")
}
