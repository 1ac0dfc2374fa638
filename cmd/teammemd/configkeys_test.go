package main

import "testing"

// An unknown key is named with its line and, when a known key of its
// table is within two edits, that key; the keys of an unknown table are
// one mistake.
func TestUnknownKeyMessages(t *testing.T) {
	tests := []struct{ config, want string }{
		{"[client]\nserverr = \"x\"\n", `line 2: unknown key client.serverr (did you mean "server"?)`},
		{"[daemon]\ndebounse = \"2s\"\n", `line 2: unknown key daemon.debounse (did you mean "debounce"?)`},
		{"daemon.max_wiat = \"2s\"\n", `line 1: unknown key daemon.max_wiat (did you mean "max_wait"?)`},
		{"[[daemon.repo]]\ncheckuot = \"x\"\n", `line 2: unknown key daemon.repo.checkuot (did you mean "checkout"?)`},
		{"[clinet]\nserver = \"x\"\ntoken_file = \"y\"\n", `line 1: unknown key clinet (did you mean "client"?)`},
		{"[client]\ncolour = \"x\"\n", `line 2: unknown key client.colour`},
		{"[client]\nserverr = 1\n[scan]\nzz = 2\n", `line 2: unknown key client.serverr (did you mean "server"?); line 4: unknown key scan.zz`},
	}
	for _, tt := range tests {
		_, err := decodeFile("", []byte(tt.config))
		if err == nil || err.Error() != tt.want {
			t.Errorf("decodeFile(%q) = %v, want %s", tt.config, err, tt.want)
		}
	}
}
