package shell

import (
	"slices"
	"testing"
)

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain/path_1.md", "plain/path_1.md"},
		{"user@host:2.0+x-y", "user@host:2.0+x-y"},
		{"", "''"},
		{"my notes.md", "'my notes.md'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"~/notes", "'~/notes'"},
		{"=ls", "'=ls'"},     // zsh: the path of ls
		{"%self", "'%self'"}, // fish 2: this process's id
		{"a=b", "'a=b'"},
		{"a,b", "'a,b'"},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestJoin(t *testing.T) {
	if got, want := Join("teammemd", "--data", "/srv/data_1"), "teammemd --data /srv/data_1"; got != want {
		t.Errorf("Join(plain words) = %s, want %s", got, want)
	}
	if got, want := Join("teammemd", "token", "create", "--repos", "demo/**"), "teammemd token create --repos 'demo/**'"; got != want {
		t.Errorf("Join(a glob) = %s, want %s", got, want)
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"teammemd run --config /home/a/config.toml", []string{"teammemd", "run", "--config", "/home/a/config.toml"}},
		{"  '/my dir/teammemd'\trun  ", []string{"/my dir/teammemd", "run"}},
		{`'it'\''s' ''`, []string{"it's", ""}},
		{`a\ b`, []string{"a b"}},
		{"", nil},
	}
	for _, tt := range tests {
		got, err := Split(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Split(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"'open", `trailing\`, `"double"`, "$HOME/x", "a;b", "*.md"} {
		if got, err := Split(in); err == nil {
			t.Errorf("Split(%q) = %q, nil, want an error", in, got)
		}
	}
}

func FuzzSplitJoin(f *testing.F) {
	for _, s := range []string{"plain", "my notes.md", "it's", "", "$HOME", "a\\b", "tab\there"} {
		f.Add(s, "--config")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		got, err := Split(Join(a, b))
		if err != nil || !slices.Equal(got, []string{a, b}) {
			t.Errorf("Split(Join(%q, %q)) = %q, %v, want the two words back", a, b, got, err)
		}
	})
}
