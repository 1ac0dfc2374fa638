package claudelab

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"testing"
)

func TestProxyRefusesAndCounts(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var p Proxy
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()

	proxyURL := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}
	if resp, err := client.Get("https://api.anthropic.com/api/hello"); err == nil {
		resp.Body.Close()
		t.Errorf("GET https://api.anthropic.com through the proxy = %s, want refused", resp.Status)
	}
	resp, err := client.Get("http://example.invalid/update")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET http://example.invalid through the proxy = %s, want 403", resp.Status)
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	c.Write([]byte("\n")) // an empty request line: still an attempt
	c.Read(buf)
	c.Close()

	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after cancel = %v, want nil", err)
	}
	want := []string{"CONNECT api.anthropic.com:443 HTTP/1.1", "GET http://example.invalid/update HTTP/1.1", ""}
	if got := p.Attempts(); !slices.Equal(got, want) {
		t.Errorf("Attempts() = %q, want %q", got, want)
	}
}
