package checkup

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
	"syscall"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// ProbeRepo is a valid slug the checks read when they have no repo of
// their own to ask about.
const ProbeRepo = "teammemd.doctor/probe"

// probeTimeout bounds one request of a check.
const probeTimeout = 10 * time.Second

// Prober runs the checks that ask a server: that it answers, that it is a
// teammemd server, and that it takes a token.
type Prober struct {
	http      *http.Client
	userAgent string
}

// NewProber is a prober whose requests carry userAgent. A redirect is
// reported, not followed: the sync client does not follow it either.
func NewProber(userAgent string) *Prober {
	return &Prober{
		http: &http.Client{
			Timeout:       probeTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		userAgent: userAgent,
	}
}

// Close drops the prober's idle connections.
func (p *Prober) Close() { p.http.CloseIdleConnections() }

// Reachable checks that server answers GET /livez, and returns the
// server's Date header (zero when absent) for the clock check.
func (p *Prober) Reachable(ctx context.Context, server string) (Result, time.Time) {
	resp, _, err := p.get(ctx, server+"/livez", "")
	if err != nil {
		return Result{Fail, err.Error(), ReachFix(err)}, time.Time{}
	}
	date, _ := http.ParseTime(resp.Header.Get("Date"))
	return Result{OK, fmt.Sprintf("GET /livez answered %s", resp.Status), ""}, date
}

// Identity checks that server speaks the team memory protocol: a read
// without a token is refused with the protocol's own 401.
func (p *Prober) Identity(ctx context.Context, server string) Result {
	resp, body, err := p.get(ctx, server+api.Path+"?repo="+url.QueryEscape(ProbeRepo), "")
	switch {
	case err != nil:
		return Result{Fail, err.Error(), ReachFix(err)}
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return Result{Fail, fmt.Sprintf("GET %s is redirected (%s) to %s", api.Path, resp.Status, resp.Header.Get("Location")),
			"set the server URL to the one it redirects to"}
	case resp.StatusCode == http.StatusUnauthorized && api.ParseError(resp.StatusCode, body).Code == api.CodeUnauthenticated:
		return Result{OK, "the server speaks the team memory protocol", ""}
	}
	return Result{Fail, fmt.Sprintf("%s is not a teammemd server: GET %s without a token answered %s (%s), not 401 %s",
		server, api.Path, resp.Status, cmp.Or(resp.Header.Get("Content-Type"), "no content type"), api.CodeUnauthenticated),
		"set the server URL to the base URL teammemd serve (or its reverse proxy) answers on, with any path prefix"}
}

// Auth checks that server takes token, which came from from.
func (p *Prober) Auth(ctx context.Context, server, token string, from TokenFrom) Result {
	status, msg, err := p.Probe(ctx, server, ProbeRepo, token)
	switch {
	case err != nil:
		return Result{Fail, err.Error(), ReachFix(err)}
	case status == http.StatusUnauthorized:
		return Result{Fail, "the server refused " + from.what() + ": " + msg, from.RefusedFix()}
	}
	return Result{OK, "the server accepts the token", ""}
}

// TokenFrom says where a token came from, which decides what to do when a
// server refuses it: Env is the environment variable that holds it, Login
// the server of the teammemd login it belongs to; neither for a token
// file. GitHub: the token is a GitHub token, whose access GitHub grants.
type TokenFrom struct {
	Env, Login string
	GitHub     bool
}

func (f TokenFrom) what() string {
	switch {
	case f.Env != "":
		return "the token from $" + f.Env
	case f.Login != "":
		return "the token of the teammemd login"
	}
	return "the token"
}

// RefusedFix is what to do about a token the server refused (401).
func (f TokenFrom) RefusedFix() string {
	switch {
	case f.Env != "":
		return EnvTokenFix(f.Env)
	case f.Login != "":
		return "log in again: teammemd login --server " + f.Login
	case f.GitHub:
		return "GitHub no longer takes the token, or the server does not take GitHub tokens: put a valid GitHub token in the token file (gh auth token prints one), or ask the server's admin which credentials it takes"
	}
	return "the token is mistyped or revoked: ask the server's admin for a new one (teammemd token create)"
}

// DeniedFix is what to do about a token that has no grant on repo (403):
// a GitHub token's access is GitHub's, a login's grants are in the
// server's config, a static token's are its own.
func (f TokenFrom) DeniedFix(repo string) string {
	switch {
	case f.GitHub:
		return "ask the repo's owners on GitHub for access to " + repo + " (push, to write its team memory)"
	case f.Login != "":
		return "ask the server's admin for a grant that covers " + repo + " ([[server.auth.grants]]), or run teammemd login as someone who has one"
	}
	return "ask the server's admin for a token whose --repos covers " + repo
}

// EnvTokenFix is what to do about a token from the environment variable
// env that the server refused: no token file or login is read while it is
// set, and a daemon started with it keeps it until it restarts.
func EnvTokenFix(env string) string {
	return "set " + env + " to a valid token (and restart a daemon started with it), or unset it to use the token file or teammemd login"
}

// Probe reads repo's checksums from server with token, and returns the
// status and, for an error, the server's message.
func (p *Prober) Probe(ctx context.Context, server, repo, token string) (int, string, error) {
	resp, body, err := p.get(ctx, server+api.Path+"?repo="+url.QueryEscape(repo)+"&view=hashes", token)
	if err != nil {
		return 0, "", err
	}
	if resp.StatusCode >= 400 {
		return resp.StatusCode, api.ParseError(resp.StatusCode, body).Error(), nil
	}
	return resp.StatusCode, "", nil
}

// get sends a GET with the token, if any, and returns the response with
// its body read (at most 1 MiB).
func (p *Prober) get(ctx context.Context, target, token string) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("User-Agent", p.userAgent)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := p.http.Do(req)
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

// ReachFix says what to do about a request that got no answer.
func ReachFix(err error) string {
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
