package main

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// unknownKeysError names each key of the config file the decoder does not
// know, with its line and the known key it is closest to, if any: a typo
// such as "serverr" reads as "did you mean server?".
func unknownKeysError(data string, undecoded []toml.Key) error {
	keys := outermostKeys(undecoded)
	msgs := make([]string, 0, len(keys))
	for _, k := range keys {
		msg := "unknown key " + k.String()
		if line := keyLine(data, k); line > 0 {
			msg = fmt.Sprintf("line %d: %s", line, msg)
		}
		if s := suggestKey(k); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		msgs = append(msgs, msg)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// outermostKeys drops the keys inside an unknown table: "[clinet]" is one
// mistake, not one per key below it. The rest stay in file order.
func outermostKeys(keys []toml.Key) []toml.Key {
	out := make([]toml.Key, 0, len(keys))
	seen := map[string]bool{}
	for _, k := range keys {
		inner := false
		for i := 1; i < len(k); i++ {
			if seen[k[:i].String()] {
				inner = true
				break
			}
		}
		if !inner && !seen[k.String()] {
			seen[k.String()] = true
			out = append(out, k)
		}
	}
	return out
}

// suggestKey is the known key of key's table closest to key's last part,
// within two edits; "" when none is that close.
func suggestKey(key toml.Key) string {
	t := reflect.TypeFor[Config]()
	for _, name := range key[:len(key)-1] {
		t = structOf(t)
		f, ok := tomlField(t, name)
		if !ok {
			return ""
		}
		t = f.Type
	}
	t = structOf(t)
	if t.Kind() != reflect.Struct {
		return ""
	}
	name := key[len(key)-1]
	best, bestDist := "", 3
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		if d := editDistance(name, tag); d < bestDist && d < max(len(tag)/2, 2) {
			best, bestDist = tag, d
		}
	}
	return best
}

// structOf is t with slices and pointers taken off, as an array of tables
// decodes into its element type.
func structOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// keyLine is the 1-based line of the file that defines key, as a key in
// its table or as a table header; 0 when it cannot tell.
func keyLine(data string, key toml.Key) int { return nthKeyLine(data, key, 0) }

// nthKeyLine is the line of the nth definition of key in the file (from
// 0): of a key in the nth table of an array of tables, or of the nth
// table's header; 0 when it cannot tell.
func nthKeyLine(data string, key toml.Key, nth int) int {
	var table []string
	for i, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		found := false
		switch {
		case strings.HasPrefix(line, "["):
			header, _, _ := strings.Cut(strings.Trim(line, "[] \t"), "]")
			table = splitKey(header)
			found = slices.Equal(table, key)
		case strings.Contains(line, "=") && !strings.HasPrefix(line, "#"):
			name, _, _ := strings.Cut(line, "=")
			found = slices.Equal(append(slices.Clone(table), splitKey(name)...), key)
		}
		if found && nth == 0 {
			return i + 1
		}
		if found {
			nth--
		}
	}
	return 0
}

// splitKey splits a dotted TOML key into its parts, unquoted.
func splitKey(s string) []string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return parts
}
