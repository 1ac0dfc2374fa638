package memsync

import (
	"strings"
	"testing"
)

// The client sends its token over plain http:// only to a loopback host,
// unless the config allows it.
func TestClientConfigCheckServer(t *testing.T) {
	tests := []struct {
		server string
		allow  bool
		ok     bool
	}{
		{"https://teammemd.example.com", false, true},
		{"https://203.0.113.7:8787", false, true},
		{"http://127.0.0.1:8787", false, true},
		{"http://127.9.9.9:8787", false, true},
		{"http://[::1]:8787", false, true},
		{"http://localhost:8787", false, true},
		{"http://LOCALHOST:8787/prefix", false, true},
		{"http://teammemd.example.com", false, false},
		{"http://teammemd.example.com", true, true},
		{"http://203.0.113.7:8787", false, false},
		{"http://[2001:db8::1]:8787", false, false},
		{"http://localhost.example.com", false, false},
		{"http://127.0.0.1.example.com", false, false},
		{"http://[::ffff:127.0.0.1]:8787", false, true},
		{"http://0.0.0.0:8787", false, false},
	}
	for _, tt := range tests {
		err := ClientConfig{AllowInsecure: tt.allow}.CheckServer(tt.server)
		if (err == nil) != tt.ok {
			t.Errorf("ClientConfig{AllowInsecure: %v}.CheckServer(%q) = %v, want ok %v", tt.allow, tt.server, err, tt.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), "allow_insecure = true") || !strings.Contains(err.Error(), "https://")) {
			t.Errorf("CheckServer(%q) = %q, want it to name https:// and allow_insecure = true", tt.server, err)
		}
	}
}

// A server URL with a user name or password is refused wherever a server
// URL is taken, the config's or a flag's, without showing the password:
// teammemd authenticates with a token.
func TestServerURLUserinfo(t *testing.T) {
	const password = "pa55word"
	for _, server := range []string{
		"http://user:" + password + "@127.0.0.1:8787",
		"https://user:" + password + "@teammemd.example.com",
		"https://" + password + "@teammemd.example.com",
	} {
		for name, err := range map[string]error{
			"CheckServer": ClientConfig{}.CheckServer(server),
			"Validate":    ClientConfig{Server: server}.Validate(),
		} {
			if err == nil || !strings.Contains(err.Error(), "token") {
				t.Errorf("%s(%s) = %v, want a refusal that says to use a token", name, server, err)
			}
			if err != nil && strings.Contains(err.Error(), password) {
				t.Errorf("%s(%s) = %q, shows the password", name, server, err)
			}
		}
	}
	if err := (ClientConfig{Server: "https://teammemd.example.com/prefix"}).Validate(); err != nil {
		t.Errorf("Validate() of a URL without user info = %v, want nil", err)
	}
}
