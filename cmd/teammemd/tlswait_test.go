package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// TestChangeWaitOverTLS holds a change wait on "teammemd serve --tls-cert"
// over HTTP/1.1, where the server parks it on its TLS connection and
// closes that connection with the answer, and over HTTP/2, where it is
// held as a stream: a write answers both with the new checksum.
func TestChangeWaitOverTLS(t *testing.T) {
	isolateConfig(t)
	dir, data := t.TempDir(), t.TempDir()
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	_, pool := testCert(t, certPath, keyPath)
	var secret bytes.Buffer
	if err := run(context.Background(), []string{"token", "create", "--data", data, "--subject", "alice", "--repos", "**"}, &secret, io.Discard); err != nil {
		t.Fatalf("token create: %v", err)
	}
	token := strings.TrimSpace(secret.String())
	addr, _, stop := serveInProcess(t, "--data", data, "--tls-cert", certPath, "--tls-key", keyPath)
	defer stop()
	base := "https://" + addr + api.Path + "?repo=acme%2Fapp"
	tlsConfig := &tls.Config{RootCAs: pool}
	clients := []struct {
		name  string
		proto int
		c     *http.Client
	}{
		{"HTTP/1.1", 1, &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig,
			TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}}},
		{"HTTP/2", 2, &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig, ForceAttemptHTTP2: true}}},
	}
	for i, cl := range clients {
		current := tlsPut(t, cl.c, base, token, strings.Repeat("x", i+1))
		answer := make(chan *http.Response, 1)
		go func() {
			req, _ := http.NewRequest(http.MethodGet, base+"&view=hashes&wait=30", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("If-None-Match", api.ETag(current))
			resp, err := cl.c.Do(req)
			if err != nil {
				t.Errorf("%s wait: %v", cl.name, err)
				answer <- nil
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			answer <- resp
		}()
		deadline := time.Now().Add(20 * time.Second)
		for changeWaitsOf(t, cl.c, "https://"+addr) != 1 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the server never held the wait", cl.name)
			}
			time.Sleep(10 * time.Millisecond)
		}
		next := tlsPut(t, cl.c, base, token, "written while waiting")
		resp := <-answer
		if resp == nil {
			continue
		}
		if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != api.ETag(next) || resp.ProtoMajor != cl.proto ||
			resp.Close != (cl.proto == 1) {
			t.Errorf("%s wait = %d ETag %s over HTTP/%d, close %v; want 200 ETag %s over HTTP/%d, the connection closed only for HTTP/1.1",
				cl.name, resp.StatusCode, resp.Header.Get("ETag"), resp.ProtoMajor, resp.Close, api.ETag(next), cl.proto)
		}
	}
}

// tlsPut writes a.md and returns the repo's new checksum.
func tlsPut(t *testing.T, c *http.Client, base, token, value string) string {
	t.Helper()
	body, _ := json.Marshal(api.PutRequest{Entries: map[string]string{"a.md": value}})
	req, _ := http.NewRequest(http.MethodPut, base, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out api.PutResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT = %d, %v", resp.StatusCode, err)
	}
	return out.Checksum
}

// changeWaitsOf reads teammemd_change_waiters from the server's /metrics.
func changeWaitsOf(t *testing.T, c *http.Client, base string) int {
	t.Helper()
	resp, err := c.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for line := range strings.SplitSeq(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "teammemd_change_waiters "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("teammemd_change_waiters %q: %v", v, err)
			}
			return int(n)
		}
	}
	return -1
}
