package route

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
)

// How long Find waits for the client to answer.
const (
	versionTimeout = 10 * time.Second
	authTimeout    = 15 * time.Second
)

// Client is an installed Claude Code client.
type Client struct {
	// Path is the executable; empty when none was found.
	Path string
	// Version is what "claude --version" says; nil when unknown.
	Version *semver.Version
	// Login is the kind of login "claude auth status" reports.
	Login Login
	// Err says why the client or its version is unknown.
	Err error
}

// Login is the client's kind of login, as "claude auth status --json"
// reports it.
type Login struct {
	// Method is the authMethod field: none, api_key, api_key_helper,
	// third_party, claude.ai or oauth_token; empty when unknown.
	Method string `json:"authMethod"`
	// Provider is the apiProvider field: firstParty, bedrock, vertex...
	Provider string `json:"apiProvider"`
}

// Uploads reports whether the client, logged in this way, syncs its
// memory stores with Anthropic's host unless its nonessential traffic is
// off: a claude.ai login, or a long-lived token of one.
func (l Login) Uploads() bool { return l.Method == "claude.ai" || l.Method == "oauth_token" }

// String names the login for people.
func (l Login) String() string {
	switch l.Method {
	case "":
		return "an unknown login"
	case "none":
		return "no login"
	case "api_key", "api_key_helper":
		return "an API key"
	case "third_party":
		return "a cloud provider (" + l.Provider + ")"
	case "claude.ai":
		return "a claude.ai login"
	case "oauth_token":
		return "a claude.ai token (CLAUDE_CODE_OAUTH_TOKEN)"
	}
	return "login " + l.Method
}

// describe names the client and its version for a sentence.
func (c Client) describe() string {
	if c.Version == nil {
		return "the Claude Code client"
	}
	return "Claude Code " + c.Version.String()
}

// Find looks for the client at path, or as "claude" on PATH when path is
// empty, and asks it its version and login. A client that cannot be found
// or does not answer is no error: Client.Err says what happened.
func Find(ctx context.Context, path string) Client {
	if path == "" {
		p, err := exec.LookPath("claude")
		if err != nil {
			return Client{Err: errors.New("no claude on PATH")}
		}
		path = p
	}
	c := Client{Path: path}
	out, err := output(ctx, versionTimeout, path, "--version")
	if err != nil {
		c.Err = fmt.Errorf("%s --version: %w", path, err)
		return c
	}
	if c.Version, err = ParseVersion(out); err != nil {
		c.Err = fmt.Errorf("%s --version: %w", path, err)
		return c
	}
	if out, err := output(ctx, authTimeout, path, "auth", "status", "--json"); err == nil {
		c.Login = parseLogin(out)
	}
	return c
}

// ParseVersion reads the version from "claude --version" output, such as
// "2.1.328 (Claude Code)".
func ParseVersion(out []byte) (*semver.Version, error) {
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return nil, errors.New("no version printed")
	}
	v, err := semver.StrictNewVersion(fields[0])
	if err != nil {
		return nil, fmt.Errorf("version %q: %w", fields[0], err)
	}
	return v, nil
}

// parseLogin reads "claude auth status --json"; output it cannot read is
// an unknown login.
func parseLogin(out []byte) Login {
	var l Login
	if json.Unmarshal(bytes.TrimSpace(out), &l) != nil {
		return Login{}
	}
	return l
}

// output runs path with args, bounded by timeout, and returns its stdout.
// A client that does not answer in time is killed.
func output(ctx context.Context, timeout time.Duration, path string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("%w: %s", err, firstLine(msg))
		}
		return nil, err
	}
	return out, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
