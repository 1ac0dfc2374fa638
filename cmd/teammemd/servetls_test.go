package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server"
)

// testCert writes a self-signed certificate for 127.0.0.1, ::1 and
// localhost, and its key, to certPath and keyPath (replacing them), and
// returns the certificate's serial number and a pool that trusts it.
func testCert(t *testing.T, certPath, keyPath string) (*big.Int, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "teammemd test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, certPath, "CERTIFICATE", der, 0o644)
	writePEM(t, keyPath, "PRIVATE KEY", keyDER, 0o600)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return serial, pool
}

func writePEM(t *testing.T, path, typ string, der []byte, mode os.FileMode) {
	t.Helper()
	data := pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// serveInProcess runs "teammemd serve" with args in this process and returns
// its address, its log lines and a function that stops it.
func serveInProcess(t *testing.T, args ...string) (addr string, logs *lineWriter, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs = &lineWriter{lines: make(chan string, 100)}
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...), io.Discard, logs)
	}()
	addr, _ = awaitLog(t, logs.lines, errc, "listening")["addr"].(string)
	stop = func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("serve after cancel = %v, want nil", err)
		}
	}
	t.Cleanup(cancel)
	return addr, logs, stop
}

// servedSerial connects to addr with TLS, trusting pool, and returns the
// serial number of the certificate the server shows.
func servedSerial(t *testing.T, addr string, pool *x509.CertPool) (*big.Int, error) {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber, nil
}

// teammemd serve --tls-cert/--tls-key serves HTTPS that a client trusting
// the certificate reaches, and refuses plain HTTP on the same port.
func TestServeTLS(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	_, pool := testCert(t, certPath, keyPath)
	addr, logs, stop := serveInProcess(t, "--data", t.TempDir(), "--tls-cert", certPath, "--tls-key", keyPath)
	defer stop()
	_ = logs
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	resp, err := client.Get("https://" + addr + "/readyz")
	if err != nil {
		t.Fatalf("GET https://%s/readyz: %v", addr, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET https://%s/readyz = %d, want 200", addr, resp.StatusCode)
	}
	plain, err := http.Get("http://" + addr + "/readyz")
	if err == nil {
		plain.Body.Close()
		if plain.StatusCode == http.StatusOK {
			t.Errorf("GET http://%s/readyz = 200 on the TLS port, want a refusal", addr)
		}
	}
}

// The TLS settings come from flags, the environment or the file, and
// need both a certificate and a key.
func TestServeTLSConfig(t *testing.T) {
	isolateConfig(t)
	tests := []struct {
		config string
		args   []string
		want   string
	}{
		{"[server]\ntls_cert = \"/etc/c.pem\"\n", nil, "tls_cert and tls_key go together"},
		{"", []string{"--tls-key", "/etc/k.pem"}, "tls_cert and tls_key go together"},
		{"", []string{"--tls-cert", "/nonexistent/c.pem", "--tls-key", "/nonexistent/k.pem"}, "load TLS certificate"},
	}
	for _, tt := range tests {
		args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", t.TempDir(), "--config", writeConfig(t, tt.config)}, tt.args...)
		_, stderr, code := runCLI(t, args...)
		if code == 0 || !strings.Contains(stderr, tt.want) {
			t.Errorf("teammemd %s: exit %d, stderr %q, want a failure saying %q", strings.Join(args, " "), code, stderr, tt.want)
		}
	}
	t.Setenv("TEAMMEMD_TLS_CERT", "/env/c.pem")
	t.Setenv("TEAMMEMD_TLS_KEY", "/env/k.pem")
	sc := server.Config{TLSCert: "/file/c.pem", TLSKey: "/file/k.pem"}
	if _, err := (serveFlags{tlsCert: "/flag/c.pem"}).apply(&sc); err != nil || sc.TLSCert != "/flag/c.pem" || sc.TLSKey != "/env/k.pem" {
		t.Errorf("serveFlags.apply(flag cert, env and file both) = %q %q %v, want /flag/c.pem /env/k.pem", sc.TLSCert, sc.TLSKey, err)
	}
}

// SIGHUP makes serve load the certificate files again; a pair that does
// not load keeps the one in use.
func TestServeReloadsCertificateOnSIGHUP(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	first, pool := testCert(t, certPath, keyPath)
	addr, logs, stop := serveInProcess(t, "--data", t.TempDir(), "--tls-cert", certPath, "--tls-key", keyPath)
	defer stop()
	if got, err := servedSerial(t, addr, pool); err != nil || got.Cmp(first) != 0 {
		t.Fatalf("served certificate %v, %v, want serial %v", got, err, first)
	}

	if err := os.WriteFile(keyPath, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	rec := awaitLog(t, logs.lines, nil, "TLS certificate not reloaded; keeping the one in use")
	if !strings.Contains(fmt.Sprint(rec["err"]), keyPath) {
		t.Errorf("failed reload logged %v, want the key file named", rec)
	}
	if got, err := servedSerial(t, addr, pool); err != nil || got.Cmp(first) != 0 {
		t.Errorf("after a failed reload the server shows %v, %v, want the first certificate %v", got, err, first)
	}

	second, pool2 := testCert(t, certPath, keyPath)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	awaitLog(t, logs.lines, nil, "TLS certificate reloaded")
	if got, err := servedSerial(t, addr, pool2); err != nil || got.Cmp(second) != 0 {
		t.Errorf("after SIGHUP the server shows %v, %v, want the new certificate %v", got, err, second)
	}
}

// teammemd sync reaches a server over TLS when the system trusts its
// certificate (here through SSL_CERT_FILE, in a child process).
func TestSyncOverTLS(t *testing.T) {
	isolateConfig(t)
	bin := teammemdBinary(t)
	dir, data := t.TempDir(), t.TempDir()
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	testCert(t, certPath, keyPath)
	var secret bytes.Buffer
	if err := run(context.Background(), []string{"token", "create", "--data", data, "--subject", "alice", "--repos", "**"}, &secret, io.Discard); err != nil {
		t.Fatalf("token create: %v", err)
	}
	addr, _, stop := serveInProcess(t, "--data", data, "--tls-cert", certPath, "--tls-key", keyPath)
	defer stop()
	team := t.TempDir()
	if err := os.WriteFile(filepath.Join(team, "MEMORY.md"), []byte("# notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "sync", "--dir", team, "--repo", "acme/app", "--server", "https://"+addr, "--state-dir", t.TempDir())
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "SSL_CERT_FILE=" + certPath,
		"TEAMMEMD_TOKEN=" + strings.TrimSpace(secret.String())}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "pushed    MEMORY.md") {
		t.Errorf("teammemd sync over TLS = %v\n%s\nwant MEMORY.md pushed", err, out)
	}
}
