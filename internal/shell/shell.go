// Package shell writes words and command lines that a POSIX shell, zsh or
// fish reads back unchanged, for the commands teammemd suggests in its
// messages and echoes in its demo.
package shell

import "strings"

// safe lists the characters a word may hold and still need no quotes. It
// leaves out "~" (a home directory at the start of a word), "=" and "%",
// which zsh ("=ls" is the path of ls) and fish 2 ("%self" is a process id)
// rewrite at the start of a word, and ",".
const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./@:+-"

// Quote returns s as one shell word: unchanged when it holds only
// characters no shell treats specially, else in single quotes, each single
// quote inside closed, escaped and reopened.
func Quote(s string) string {
	if s != "" && strings.Trim(s, safe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join writes args as a command line a shell splits back into args.
func Join(args ...string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = Quote(a)
	}
	return strings.Join(words, " ")
}
