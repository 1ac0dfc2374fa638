package loopback

import "testing"

func TestIs(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LocalHost", true},
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"10.0.0.1", false},
		{"::", false},
		{"localhost.example.com", false},
		{"127.0.0.1.nip.io", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := Is(tt.host); got != tt.want {
			t.Errorf("Is(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		raw  string
		want string // the error, "" for none
	}{
		{"https://idp.acme.com", ""},
		{"HTTPS://idp.acme.com/x", ""},
		{"http://127.0.0.1:9/", ""},
		{"http://[::1]:9/", ""},
		{"http://localhost:8080", ""},
		{"http://idp.acme.com", `issuer "http://idp.acme.com" must be https:// (http:// only to a loopback address)`},
		{"http://127.0.0.1.nip.io/", `issuer "http://127.0.0.1.nip.io/" must be https:// (http:// only to a loopback address)`},
		{"ftp://127.0.0.1/", `issuer "ftp://127.0.0.1/" must be https:// (http:// only to a loopback address)`},
		{"idp.acme.com", `issuer "idp.acme.com" is not an absolute URL`},
		{"https://", `issuer "https://" is not an absolute URL`},
	}
	for _, tt := range tests {
		got := ""
		if err := CheckURL("issuer", tt.raw); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckURL(issuer, %q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}
