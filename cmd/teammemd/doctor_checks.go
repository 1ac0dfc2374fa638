package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/credential"
)

// doctorProbeRepo is a valid slug the doctor reads when it has no repo of
// its own to ask about.
const doctorProbeRepo = "teammemd.doctor/probe"

func (d *doctor) checkConfig(context.Context) {
	path := cmp.Or(d.config, os.Getenv("TEAMMEMD_CONFIG"), filepath.Join(configDir(), "config.toml"))
	cfg, err := loadConfig(d.config)
	switch _, serr := os.Stat(path); {
	case err != nil:
		cfg = Config{}
		d.badConfig = true
		d.report(checkFail, "config", err.Error(), "correct the file as the message says; configs/daemon.toml documents every key")
	case serr != nil:
		d.report(checkOK, "config", "none at "+path+"; flags and environment only", "")
	default:
		d.report(checkOK, "config", path, "")
	}
	d.cfg = cfg
	d.client = d.flags.resolve(cfg.Client)
	d.client.AllowInsecure = cfg.Client.AllowInsecure
	d.rule = newTokenRule(d.flags, cfg.Client)
}

func (d *doctor) checkServer(context.Context) {
	if d.skipForConfig("server") {
		return
	}
	if d.client.Server == "" {
		d.report(checkFail, "server", "none set", "pass --server URL, set "+envServer+", or set [client] server in the config")
		return
	}
	if err := d.client.CheckServer(d.client.Server); err != nil {
		d.client.Server = ""
		d.report(checkFail, "server", err.Error(), "use the server's https:// URL, or set allow_insecure = true in [client] on a network you trust")
		return
	}
	d.report(checkOK, "server", d.client.Server, "")
}

func (d *doctor) checkToken(context.Context) {
	if d.skipForConfig("token") {
		return
	}
	file := d.client.TokenFile
	cred := d.rule.For(d.client.Server, file)
	tok, err := cred.Bearer()
	switch {
	case err != nil:
		d.report(checkFail, "token", err.Error(), "run teammemd login --server URL, or put the token in a file of mode 0600 "+
			"and name it with --token-file or [client] token_file, or set "+envToken)
		return
	case cred.Kind == credential.Login:
		d.token = tok
		d.report(checkOK, "token", "the login to "+d.client.Server+" (teammemd login"+loginKept(d.client.Server)+")", "")
		return
	case cred.Kind == credential.Env:
		d.token = tok
		d.report(checkOK, "token", "from $"+envToken+" (not shown)", "")
		return
	}
	if info, err := os.Stat(file); err == nil && info.Mode().Perm()&0o077 != 0 {
		d.report(checkFail, "token", fmt.Sprintf("%s is readable by other users (mode %04o)", file, info.Mode().Perm()), "chmod 600 "+file)
		return
	}
	d.token = tok
	d.report(checkOK, "token", "from "+file+" (not shown)", "")
}

func (d *doctor) checkReachable(ctx context.Context) {
	if d.client.Server == "" {
		d.report(checkSkip, "reachable", "needs a server", "")
		return
	}
	resp, _, err := d.get(ctx, d.client.Server+"/livez", "")
	if err != nil {
		d.report(checkFail, "reachable", err.Error(), reachFix(err))
		return
	}
	d.reached = true
	d.date, _ = http.ParseTime(resp.Header.Get("Date"))
	d.report(checkOK, "reachable", fmt.Sprintf("GET /livez answered %s", resp.Status), "")
}

// reachFix says what to do about a request that got no answer.
func reachFix(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var netErr net.Error
	switch {
	case errors.As(err, &dnsErr):
		return "check the host name in the server URL"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "start the server (teammemd serve), or check the host and port in the server URL"
	case errors.As(err, &certErr), errors.As(err, &unknownCA):
		return "the server's certificate is not trusted here: serve a certificate from a public CA, or add your CA to the system's trust store (or point SSL_CERT_FILE at it)"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "check the network path to the server: a firewall may drop the connection"
	}
	return "check the server URL and that the server runs"
}

func (d *doctor) checkIdentity(ctx context.Context) {
	if !d.reached {
		d.report(checkSkip, "teammemd", "needs a server that answers", "")
		return
	}
	target := d.client.Server + api.Path + "?repo=" + url.QueryEscape(doctorProbeRepo)
	resp, body, err := d.get(ctx, target, "")
	switch {
	case err != nil:
		d.report(checkFail, "teammemd", err.Error(), reachFix(err))
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		d.report(checkFail, "teammemd", fmt.Sprintf("GET %s is redirected (%s) to %s", api.Path, resp.Status, resp.Header.Get("Location")),
			"set the server URL to the one it redirects to")
	case resp.StatusCode == http.StatusUnauthorized && api.ParseError(resp.StatusCode, body).Code == api.CodeUnauthenticated:
		d.identity = true
		d.report(checkOK, "teammemd", "the server speaks the team memory protocol", "")
	default:
		d.report(checkFail, "teammemd", fmt.Sprintf("%s is not a teammemd server: GET %s without a token answered %s (%s), not 401 %s",
			d.client.Server, api.Path, resp.Status, cmp.Or(resp.Header.Get("Content-Type"), "no content type"), api.CodeUnauthenticated),
			"set the server URL to the base URL teammemd serve (or its reverse proxy) answers on, with any path prefix")
	}
}

func (d *doctor) checkAuth(ctx context.Context) {
	if !d.identity || d.token == "" {
		d.report(checkSkip, "auth", "needs a teammemd server and a token", "")
		return
	}
	status, msg, err := d.probe(ctx, d.client.Server, doctorProbeRepo, d.token)
	switch {
	case err != nil:
		d.report(checkFail, "auth", err.Error(), reachFix(err))
	case status == http.StatusUnauthorized:
		d.report(checkFail, "auth", "the server refused the token: "+msg,
			"the token is mistyped or revoked: ask the server's admin for a new one (teammemd token create)")
	default:
		d.report(checkOK, "auth", "the server accepts the token", "")
	}
}

// get sends a GET with the token, if any, and returns the response with
// its body read (at most 1 MiB).
func (d *doctor) get(ctx context.Context, target, token string) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("User-Agent", "teammemd/"+version+" doctor")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("read the answer of %s: %w", target, err)
	}
	return resp, body, nil
}

// probe reads repo's checksums from server with token, and returns the
// status and, for an error, the server's message.
func (d *doctor) probe(ctx context.Context, server, repo, token string) (int, string, error) {
	resp, body, err := d.get(ctx, server+api.Path+"?repo="+url.QueryEscape(repo)+"&view=hashes", token)
	if err != nil {
		return 0, "", err
	}
	if resp.StatusCode >= 400 {
		return resp.StatusCode, api.ParseError(resp.StatusCode, body).Error(), nil
	}
	return resp.StatusCode, "", nil
}
