package shell

import "testing"

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
