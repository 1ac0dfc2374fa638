package main

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// checkDurationForms refuses a duration of the config written as a bare
// number: the TOML decoder would read "rescan = 300" as 300 nanoseconds. It
// reads the file's own types, so it names the line, the key and the form
// that works.
func checkDurationForms(data string) error {
	settings, doc, err := settingsOf(data)
	if err != nil {
		return nil // decoding into Config reports the syntax error
	}
	for _, s := range settings {
		if s.table || !isDurationKey(reflect.TypeFor[Config](), s.key) {
			continue
		}
		if msg := durationForm(s.key, s.valueAt(doc)); msg != "" {
			return errors.New(atLine(s.line, msg))
		}
	}
	return nil
}

// durationForm says what is wrong with v as the value of the duration
// key, "" when nothing is.
func durationForm(key toml.Key, v any) string {
	switch v := v.(type) {
	case int64, float64:
		num := fmt.Sprint(v)
		return fmt.Sprintf("%s = %s has no unit (a bare number is read as nanoseconds): write a duration string such as %q",
			key.String(), num, num+"s")
	case string:
		if isBareNumber(v) {
			return fmt.Sprintf("%s = %q has no unit: write a duration string such as %q", key.String(), v, strings.TrimSpace(v)+"s")
		}
	}
	return ""
}

// isBareNumber reports whether s is a number with no unit, such as "5"
// or "0.5", which a duration string must not be (but "0" may).
func isBareNumber(s string) bool {
	s = strings.TrimSpace(s)
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && s != "0"
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
