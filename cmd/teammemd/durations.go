package main

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// checkDurationForms refuses a duration of the config written as a bare
// number: the TOML decoder would read "rescan = 300" as 300 nanoseconds. It
// reads the file's own types, so it names the key and the form that works.
func checkDurationForms(data string) error {
	var raw map[string]any
	md, err := toml.Decode(data, &raw)
	if err != nil {
		return nil // decoding into Config reports the syntax error
	}
	for _, key := range md.Keys() {
		typ := md.Type(key...)
		if typ != "Integer" && typ != "Float" || !isDurationKey(reflect.TypeFor[Config](), key) {
			continue
		}
		num := fmt.Sprint(lookupRaw(raw, key))
		return fmt.Errorf("%s = %s has no unit (a bare number is read as nanoseconds): write a duration string such as %q",
			key.String(), num, num+"s")
	}
	return nil
}

// isDurationKey reports whether key names a time.Duration field of t, by
// the fields' toml tags; arrays of tables descend into their element.
func isDurationKey(t reflect.Type, key []string) bool {
	for _, name := range key {
		for t.Kind() == reflect.Slice || t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return false
		}
		f, ok := tomlField(t, name)
		if !ok {
			return false
		}
		t = f.Type
	}
	return t == reflect.TypeFor[time.Duration]()
}

// tomlField finds the field of struct type t whose toml tag is name.
func tomlField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// lookupRaw returns the value at key in a generically decoded document; in
// an array of tables, the first table that holds it.
func lookupRaw(v any, key []string) any {
	for _, name := range key {
		switch m := v.(type) {
		case map[string]any:
			v = m[name]
		case []map[string]any:
			for _, t := range m {
				if x, ok := t[name]; ok {
					v = x
					break
				}
			}
		default:
			return nil
		}
	}
	return v
}
