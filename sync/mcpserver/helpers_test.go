//lint:file-ignore SA1019 the tests offer roots as an older client does

package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/scan"

	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

const testRepo = "acme/app"

// fixedNow is the clock of the tests' servers.
var fixedNow = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// loadScanner builds the real scanner with the default rules, once.
var loadScanner = sync.OnceValues(func() (*scan.Scanner, error) { return scan.New(scan.Config{}) })

func testScanner(t *testing.T) *scan.Scanner {
	t.Helper()
	sc, err := loadScanner()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// client is a connected client and what it heard from the server.
type client struct {
	cs          *mcp.ClientSession
	listChanged chan struct{}
	updated     chan string
}

// startServer runs a server on opts over an in-memory transport and
// connects a client, one that offers roots when roots are given. The server ends with the test.
func startServer(t *testing.T, opts Options, roots ...*mcp.Root) *client {
	t.Helper()
	if opts.Scanner == nil {
		opts.Scanner = testScanner(t)
	}
	opts.Now = func() time.Time { return fixedNow }
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	c := &client{listChanged: make(chan struct{}, 64), updated: make(chan string, 64)}
	mc := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			c.listChanged <- struct{}{}
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			c.updated <- req.Params.URI
		},
	})
	var copts *mcp.ClientSessionOptions
	if len(roots) > 0 {
		mc.AddRoots(roots...)
		// Roots are asked for on the protocol revisions before 2026-07-28.
		copts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	cs, err := mc.Connect(ctx, ct, copts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	c.cs = cs
	t.Cleanup(func() {
		cancel()
		cs.Close()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("Run = %v", err)
		}
	})
	return c
}

// teamDir returns a new team directory holding files, key to content.
func teamDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "team")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for k, v := range files {
		claudetest.WriteNote(t, dir, k, v)
	}
	return dir
}

// call calls a tool that must succeed and decodes its structured output
// into out.
func (c *client) call(t *testing.T, name string, args map[string]any, out any) {
	t.Helper()
	res := c.callResult(t, name, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, text(res))
	}
	if out == nil {
		return
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%s: decode %s: %v", name, data, err)
	}
}

// callErr calls a tool that must fail and returns its message.
func (c *client) callErr(t *testing.T, name string, args map[string]any) string {
	t.Helper()
	res := c.callResult(t, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v) = %s, want an error", name, args, text(res))
	}
	return text(res)
}

// callText calls a tool that must succeed and returns its text.
func (c *client) callText(t *testing.T, name string, args map[string]any) string {
	t.Helper()
	res := c.callResult(t, name, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, text(res))
	}
	return text(res)
}

func (c *client) callResult(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// text joins a result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// waitFor waits for a notification the server must send; the bound only
// keeps a broken test from hanging.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s", what)
	}
	var zero T
	return zero
}
