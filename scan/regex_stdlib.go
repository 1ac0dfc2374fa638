//go:build !gore2regex

package scan

import "regexp"

// regexEngine names the regular-expression engine the rules run on; it is
// part of the ruleset fingerprint.
const regexEngine = "go-regexp"

func compileRegex(expr string) (*regexp.Regexp, error) { return regexp.Compile(expr) }
