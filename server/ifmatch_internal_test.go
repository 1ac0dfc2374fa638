package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestReadIfMatch(t *testing.T) {
	tests := []struct {
		fields []string // nil: no header
		want   ifMatchList
	}{
		{nil, ifMatchList{}},
		{[]string{``}, ifMatchList{present: true}},
		{[]string{`""`}, ifMatchList{present: true}},
		{[]string{`W/""`}, ifMatchList{present: true}},
		{[]string{`W/"sha256:ab"`}, ifMatchList{present: true}},
		{[]string{`"sha256:ab"`}, ifMatchList{present: true, tags: []string{"sha256:ab"}}},
		{[]string{` sha256:ab `}, ifMatchList{present: true, tags: []string{"sha256:ab"}}},
		{[]string{`"", "sha256:00"`}, ifMatchList{present: true, tags: []string{"sha256:00"}}},
		{[]string{`"a,b" ,W/"c",, "d"`}, ifMatchList{present: true, tags: []string{"a,b", "d"}}},
		{[]string{`"a"`, `"b"`}, ifMatchList{present: true, tags: []string{"a", "b"}}},
		{[]string{`"a, "b`}, ifMatchList{present: true, tags: []string{"a, "}}},
		{[]string{`"unterminated`}, ifMatchList{present: true, tags: []string{`"unterminated`}}},
		{[]string{` * `}, ifMatchList{present: true, any: true}},
		{[]string{`W/*`}, ifMatchList{present: true}},
		{[]string{`"*"`}, ifMatchList{present: true, tags: []string{"*"}}},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.fields != nil {
			h["If-Match"] = tt.fields
		}
		got := readIfMatch(h)
		if got.present != tt.want.present || got.any != tt.want.any || !slices.Equal(got.tags, tt.want.tags) {
			t.Errorf("readIfMatch(%q) = %+v, want %+v", tt.fields, got, tt.want)
		}
	}
}

func FuzzReadIfMatch(f *testing.F) {
	for _, seed := range []string{``, `""`, `W/""`, `"sha256:ab", "sha256:cd"`, ` * `, `"a,b",W/"c"`, `"unterminated`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, field string) {
		m := readIfMatch(http.Header{"If-Match": {field}})
		if !m.present {
			t.Fatalf("readIfMatch(%q): not present", field)
		}
		for _, tag := range m.tags {
			if tag == "" || !strings.Contains(field, tag) {
				t.Fatalf("readIfMatch(%q) = tag %q, want a non-empty part of the field", field, tag)
			}
		}
	})
}
