package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// lineError is an error with the lines of the config file named in its
// message; it unwraps to the error without them.
type lineError struct {
	msg string
	err error
}

func (e lineError) Error() string { return e.msg }
func (e lineError) Unwrap() error { return e.err }

// maxTrials bounds the settings withKeyLines tries away, each a decoding
// of the whole file: a config file sets a few dozen.
const maxTrials = 1000

// trial is what check says of the config without one setting: its error
// message, "" when it passes.
type trial struct {
	s   setting
	out string
}

// withKeyLines names, before each line of err, the line of the config
// file data that sets what that line is about. err is check's error for
// the config data holds, and each setting is tried away in turn: a value
// without which check no longer says a line is to blame for it (the one
// the line names first, else one whose absence check says nothing new
// about); a line no value is to blame for (a key missing) is about the
// innermost table without which it goes. A line nothing in the file is to
// blame for (a flag or the environment set the value) stays as it is.
func withKeyLines(data string, err error, check func(Config) error) error {
	settings, _, derr := settingsOf(data)
	if derr != nil || len(settings) > maxTrials {
		return err
	}
	msgs := strings.Split(err.Error(), "\n")
	values := slices.DeleteFunc(slices.Clone(settings), func(s setting) bool { return s.table })
	tables := slices.DeleteFunc(settings, func(s setting) bool { return !s.table })
	valueTrials, tableTrials := tryWithout(data, values, check), []trial(nil)
	named := false
	for i, m := range msgs {
		if m == "" {
			continue
		}
		s, ok := blameValue(m, msgs, valueTrials)
		if !ok {
			if tableTrials == nil {
				tableTrials = tryWithout(data, tables, check)
			}
			s, ok = blameTable(m, msgs, tableTrials, values)
		}
		if ok && s.line > 0 {
			msgs[i], named = atLine(s.line, m), true
		}
	}
	if !named {
		return err
	}
	return lineError{msg: strings.Join(msgs, "\n"), err: err}
}

// tryWithout runs check without each of settings in turn.
func tryWithout(data string, settings []setting, check func(Config) error) []trial {
	var out []trial
	for _, s := range settings {
		if msg, ok := checkWithout(data, s, check); ok {
			out = append(out, trial{s: s, out: msg})
		}
	}
	return out
}

// blameValue is the value to blame for msg, one line of msgs: of the
// values without which check no longer says msg, the one msg names first,
// else the first without which check says nothing new.
func blameValue(msg string, msgs []string, trials []trial) (setting, bool) {
	var ends, clean []setting
	for _, t := range trials {
		if strings.Contains(t.out, msg) || !placedIn(msg, t.s) {
			continue
		}
		ends = append(ends, t.s)
		if !saysMore(t.out, msgs, asIs) {
			clean = append(clean, t.s)
		}
	}
	if s, ok := firstNamed(msg, ends); ok {
		return s, true
	}
	if len(clean) > 0 {
		return clean[0], true
	}
	return setting{}, false
}

// blameTable is the innermost table without which check no longer says
// msg and says nothing new, or the value in it that msg names first. The
// indexes msg names are not compared: taking out a table of an array of
// tables moves those after it.
func blameTable(msg string, msgs []string, trials []trial, values []setting) (setting, bool) {
	var best setting
	found := false
	for _, t := range trials {
		out := withoutIndexes(t.out)
		if strings.Contains(out, withoutIndexes(msg)) || saysMore(out, msgs, withoutIndexes) || !placedIn(msg, t.s) {
			continue
		}
		if !found || len(t.s.path) > len(best.path) {
			best, found = t.s, true
		}
	}
	if !found {
		return setting{}, false
	}
	inside := slices.DeleteFunc(slices.Clone(values), func(v setting) bool {
		return len(v.path) <= len(best.path) || !slices.Equal(v.path[:len(best.path)], best.path)
	})
	if v, ok := firstNamed(msg, inside); ok {
		return v, true
	}
	return best, true
}

// saysMore reports whether out has a line that none of msgs says, or
// says in part, as norm makes them.
func saysMore(out string, msgs []string, norm func(string) string) bool {
	for _, line := range strings.Split(out, "\n") {
		said := line == ""
		for _, m := range msgs {
			m = norm(m)
			said = said || m != "" && (strings.Contains(line, m) || strings.Contains(m, line))
		}
		if !said {
			return true
		}
	}
	return false
}

// asIs compares messages as they are.
func asIs(s string) string { return s }

// arrayIndex is an index into an array in a message, "repo[2]", with the
// array's name.
var arrayIndex = regexp.MustCompile(`([A-Za-z0-9_]+)\[(\d+)\]`)

// withoutIndexes compares messages but for the indexes into arrays.
func withoutIndexes(s string) string { return arrayIndex.ReplaceAllString(s, "$1[]") }

// placedIn reports whether s may be what msg is about: where msg names a
// table of an array of tables by its index ("repo[1]"), s lies in that
// table of an array of that name, or in none.
func placedIn(msg string, s setting) bool {
	named := map[string][]int{}
	for _, m := range arrayIndex.FindAllStringSubmatch(msg, -1) {
		i, _ := strconv.Atoi(m[2]) // the pattern holds digits only
		named[m[1]] = append(named[m[1]], i)
	}
	for _, step := range s.path {
		if idx, ok := named[step.name]; ok && step.index >= 0 && !slices.Contains(idx, step.index) {
			return false
		}
	}
	return true
}

// firstNamed is the one of candidates whose last key part msg names
// first; ok is false when msg names none.
func firstNamed(msg string, candidates []setting) (setting, bool) {
	var best setting
	at := -1
	for _, s := range candidates {
		if i := wordIndex(msg, s.key[len(s.key)-1]); i >= 0 && (at < 0 || i < at) {
			best, at = s, i
		}
	}
	return best, at >= 0
}

// wordIndex is the index of the first w in s that no letter, digit or
// underscore touches, and that is the last part of a key there: no "." or
// "[" follows it. It is -1 when there is none.
func wordIndex(s, w string) int {
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(w)
		if (i == 0 || !isKeyChar(s[i-1])) && (end == len(s) || !isKeyChar(s[end]) && s[end] != '.' && s[end] != '[') {
			return i
		}
		from = i + 1
	}
}

func isKeyChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
