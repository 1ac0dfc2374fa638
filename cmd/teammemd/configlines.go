package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// setting is one thing the config file sets: a value, a table, or one
// table of an array of tables. path finds it in the file decoded
// generically; line is the line that sets it (0 when that cannot be told).
type setting struct {
	key   toml.Key
	path  []keyStep
	line  int
	table bool
}

// keyStep is one step down a generically decoded TOML document: a key,
// and for an array of tables which table of it (-1 for any other key).
type keyStep struct {
	name  string
	index int
}

// settingsOf decodes data generically and lists what it sets, in the
// file's order. The keys inside an array written inline are left out: the
// array's own key stands for them.
func settingsOf(data string) ([]setting, map[string]any, error) {
	var doc map[string]any
	md, err := toml.Decode(data, &doc)
	if err != nil {
		return nil, nil, err
	}
	tables := map[string]int{} // per array of tables, its tables so far
	seen := map[string]int{}   // per key, its definitions so far
	var out []setting
	for _, k := range md.Keys() {
		typ := md.Type(k...)
		if typ == "ArrayHash" {
			countTable(tables, k.String())
		}
		if inInlineArray(md, k) {
			continue
		}
		nth := seen[k.String()]
		seen[k.String()]++
		out = append(out, setting{key: k, path: stepsTo(md, k, tables), line: settingLine(data, k, nth),
			table: typ == "Hash" || typ == "ArrayHash"})
	}
	return out, doc, nil
}

// settingLine is the line of the nth definition of key, or where it is
// written inline, the line of the table that holds it.
func settingLine(data string, key toml.Key, nth int) int {
	line := nthKeyLine(data, key, nth)
	for i := len(key) - 1; line == 0 && i > 0; i-- {
		line = keyLine(data, key[:i])
	}
	return line
}

// countTable counts one more table of the array of tables key; the arrays
// of tables inside it start again with the new table.
func countTable(tables map[string]int, key string) {
	tables[key]++
	for k := range tables {
		if strings.HasPrefix(k, key+".") {
			delete(tables, k)
		}
	}
}

// inInlineArray reports whether key lies inside an array written inline.
func inInlineArray(md toml.MetaData, key toml.Key) bool {
	for i := 1; i < len(key); i++ {
		if md.Type(key[:i]...) == "Array" {
			return true
		}
	}
	return false
}

// stepsTo is the path to key, each array of tables on it at the table
// being defined.
func stepsTo(md toml.MetaData, key toml.Key, tables map[string]int) []keyStep {
	steps := make([]keyStep, len(key))
	for i, name := range key {
		steps[i] = keyStep{name: name, index: -1}
		if md.Type(key[:i+1]...) == "ArrayHash" {
			steps[i].index = tables[key[:i+1].String()] - 1
		}
	}
	return steps
}

// tableAt is the table path leads to in doc.
func tableAt(doc map[string]any, path []keyStep) (map[string]any, bool) {
	t := doc
	for _, s := range path {
		switch v := t[s.name].(type) {
		case map[string]any:
			t = v
		case []map[string]any:
			if s.index < 0 || s.index >= len(v) {
				return nil, false
			}
			t = v[s.index]
		default:
			return nil, false
		}
	}
	return t, true
}

// valueAt is the value s sets in doc.
func (s setting) valueAt(doc map[string]any) any {
	t, ok := tableAt(doc, s.path[:len(s.path)-1])
	if !ok {
		return nil
	}
	return t[s.path[len(s.path)-1].name]
}

// remove takes what s sets out of doc, and reports whether it could.
func (s setting) remove(doc map[string]any) bool {
	t, ok := tableAt(doc, s.path[:len(s.path)-1])
	if !ok {
		return false
	}
	last := s.path[len(s.path)-1]
	if last.index < 0 {
		delete(t, last.name)
		return true
	}
	arr, ok := t[last.name].([]map[string]any)
	if !ok || last.index >= len(arr) {
		return false
	}
	t[last.name] = slices.Delete(arr, last.index, last.index+1)
	return true
}

// atLine puts line before msg, when it is known.
func atLine(line int, msg string) string {
	if line <= 0 {
		return msg
	}
	return fmt.Sprintf("line %d: %s", line, msg)
}

// checkWithout runs check on the config data holds without what s sets,
// and returns its error message, "" when it passes; ok is false when that
// config cannot be made.
func checkWithout(data string, s setting, check func(Config) error) (msg string, ok bool) {
	var doc map[string]any
	if _, err := toml.Decode(data, &doc); err != nil || !s.remove(doc) {
		return "", false
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(doc); err != nil {
		return "", false
	}
	var cfg Config
	if _, err := toml.Decode(b.String(), &cfg); err != nil {
		return "", false
	}
	if err := check(cfg); err != nil {
		return err.Error(), true
	}
	return "", true
}
