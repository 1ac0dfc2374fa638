// Package shell writes words and command lines that a POSIX shell, zsh or
// fish reads back unchanged, for the commands teammemd suggests in its
// messages and echoes in its demo, and splits such a line back into its
// words.
package shell

import (
	"fmt"
	"strings"
)

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

// Split splits a command line that Join wrote back into its words: words
// are separated by spaces and tabs, a single-quoted part is taken as it
// is, and a backslash outside quotes takes the next character as it is.
// Anything else a shell would expand (double quotes, $, globs) is refused,
// as is an unterminated quote.
func Split(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated single quote in %q", line)
			}
			w.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '\\':
			if i+1 == len(line) {
				return nil, fmt.Errorf("a backslash ends %q", line)
			}
			i++
			w.WriteByte(line[i])
			inWord = true
		case strings.IndexByte(`"$`+"`"+`*?[;&|<>(){}#`+"\n", c) >= 0:
			return nil, fmt.Errorf("%q holds %q, which a shell would expand or treat specially outside single quotes", line, c)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
