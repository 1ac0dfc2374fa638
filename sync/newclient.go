package memsync

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/oauth2"
)

// Client talks to a team memory server (PROTOCOL.md): full pulls, hash
// probes, pushes and change waits, with bounded retries on 5xx, 429 and
// network errors. It never logs the token or a body.
type Client struct {
	base      *url.URL
	ts        oauth2.TokenSource
	userAgent string
	machine   string
	instance  string // the Teammemd-Instance header, "" for none
	log       *slog.Logger
	transport http.RoundTripper
	retryMax  int
	waitMin   time.Duration
	waitMax   time.Duration
	// storeID is the store identity the last response named.
	storeID atomic.Pointer[string]
	// personalKey is the personal key ID the last personal lane answer
	// named.
	personalKey atomic.Pointer[string]
	// hints is the change waits' use of write hints.
	hints writeHints
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithUserAgent sets the product the User-Agent header names, such as
// "teammemd/1.4.0" (default "teammemd/dev"); the client adds its platform,
// as in "teammemd/1.4.0 (linux/amd64)".
func WithUserAgent(product string) ClientOption {
	return func(c *Client) { c.userAgent = userAgent(product) }
}

// WithMachine sets the machine name sent in the Teammemd-Client header,
// which the server records in history (default: this machine's host name
// up to its first dot); an empty name sends no header.
func WithMachine(name string) ClientOption { return func(c *Client) { c.machine = machineName(name) } }

// WithInstance has the client name itself in every request with an
// instance of its own, chosen at random (PROTOCOL.md section 19): a
// change wait it holds is then carried past its own PUTs instead of
// answered with them. Give it to the client of one engine alone, whose
// pushes and change waits it makes: a write through it that the engine
// never learns of would go unseen until the wait ends.
func WithInstance() ClientOption {
	return func(c *Client) {
		b := make([]byte, 16)
		_, _ = rand.Read(b) // crypto/rand.Read never fails
		c.instance = base64.RawURLEncoding.EncodeToString(b)
	}
}

// WithLogger sets the logger used to report retries. Each line names the
// repo itself, so l should not carry a repo attribute.
func WithLogger(l *slog.Logger) ClientOption { return func(c *Client) { c.log = l } }

// WithTransport sets the HTTP transport (default: a pooled clone of
// http.DefaultTransport).
func WithTransport(rt http.RoundTripper) ClientOption { return func(c *Client) { c.transport = rt } }

// WithRetry sets the number of retries after the first attempt and the
// bounds of the exponential backoff between them (defaults 4, 1 s, 30 s).
func WithRetry(maxRetries int, minWait, maxWait time.Duration) ClientOption {
	return func(c *Client) { c.retryMax, c.waitMin, c.waitMax = maxRetries, minWait, maxWait }
}

// NewClient returns a client for the server at baseURL (scheme and host,
// optionally a path prefix) that authenticates with tokens from ts.
func NewClient(baseURL string, ts oauth2.TokenSource, opts ...ClientOption) (*Client, error) {
	u, err := parseServer(baseURL)
	if err != nil {
		return nil, err
	}
	if ts == nil {
		return nil, errors.New("no token source: set TEAMMEMD_TOKEN or token_file")
	}
	c := &Client{
		base: u, ts: ts, userAgent: userAgent("teammemd/dev"), machine: hostMachine(), log: slog.New(slog.DiscardHandler),
		retryMax: 4, waitMin: time.Second, waitMax: 30 * time.Second,
	}
	for _, o := range opts {
		o(c)
	}
	if c.transport == nil {
		c.transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	return c, nil
}

// parseServer parses a server's base URL: http:// or https:// with a host,
// trailing slashes dropped.
func parseServer(baseURL string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("parse server URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server URL %q must be http:// or https:// with a host", baseURL)
	}
	return u, nil
}
