package server

import (
	"net/http"
	"testing"
)

func TestClientKey(t *testing.T) {
	ps, err := parseProxies([]string{"127.0.0.1", "10.0.0.0/8", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, remote string
		xff          []string
		want         string
	}{
		{"direct client", "203.0.113.7:5000", nil, "203.0.113.7"},
		{"direct client's own header is ignored", "203.0.113.7:5000", []string{"198.51.100.1"}, "203.0.113.7"},
		{"through the proxy", "127.0.0.1:5000", []string{"203.0.113.7"}, "203.0.113.7"},
		{"through the proxy, no header", "127.0.0.1:5000", nil, "127.0.0.1"},
		{"a client's forged entry before its own", "127.0.0.1:5000", []string{"198.51.100.1, 203.0.113.7"}, "203.0.113.7"},
		{"through two proxies", "127.0.0.1:5000", []string{"203.0.113.7, 10.1.2.3"}, "203.0.113.7"},
		{"two header lines", "127.0.0.1:5000", []string{"198.51.100.1", "203.0.113.7"}, "203.0.113.7"},
		{"entry with a port", "127.0.0.1:5000", []string{"203.0.113.7:4444"}, "203.0.113.7"},
		{"garbage from the proxy", "127.0.0.1:5000", []string{"203.0.113.7, not-an-address"}, "127.0.0.1"},
		{"every hop a proxy", "127.0.0.1:5000", []string{"10.0.0.1, 10.0.0.2"}, "10.0.0.1"},
		{"IPv6 client by its /64", "[2001:db8:1:2:3:4:5:6]:5000", nil, "2001:db8:1:2::/64"},
		{"IPv6 client through the proxy", "[::1]:5000", []string{"2001:db8:1:2::99"}, "2001:db8:1:2::/64"},
		{"mapped IPv4 peer", "[::ffff:127.0.0.1]:5000", []string{"203.0.113.7"}, "203.0.113.7"},
	}
	for _, tt := range tests {
		r := &http.Request{RemoteAddr: tt.remote, Header: http.Header{}}
		for _, v := range tt.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := ps.clientKey(r); got != tt.want {
			t.Errorf("clientKey(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := (proxies(nil)).clientKey(&http.Request{RemoteAddr: "127.0.0.1:5000", Header: http.Header{"X-Forwarded-For": {"203.0.113.7"}}}); got != "127.0.0.1" {
		t.Errorf("clientKey(no trusted proxies) = %q, want the peer", got)
	}
}

func TestParseProxies(t *testing.T) {
	tests := []struct {
		in   []string
		want string // the error, "" for none
	}{
		{[]string{"127.0.0.1", "::1", "10.0.0.0/8", "fd00::/8"}, ""},
		{[]string{"127.0.0.1", "localhost"}, `trusted_proxies[1] "localhost" is not an IP address or a CIDR prefix`},
		{[]string{"10.0.0.0/33"}, `trusted_proxies[0] "10.0.0.0/33" is not an IP address or a CIDR prefix`},
		{[]string{""}, `trusted_proxies[0] "" is not an IP address or a CIDR prefix`},
	}
	for _, tt := range tests {
		got := ""
		if _, err := parseProxies(tt.in); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("parseProxies(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
