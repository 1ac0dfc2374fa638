//go:build gore2regex

package scan

import re2 "github.com/wasilibs/go-re2"

// regexEngine names the regular-expression engine the rules run on; it is
// part of the ruleset fingerprint.
const regexEngine = "re2"

func compileRegex(expr string) (*re2.Regexp, error) { return re2.Compile(expr) }
