package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/server/api"
)

// benchRepo is the repo the revisions are written to.
const benchRepo = "bench/history"

// perPut is how many entries one PUT writes: 8 of the largest size stay
// within the 2 MiB body.
const perPut = 8

// serverConfig keeps every revision's content, lets the writes through
// without a secret scan and turns the rate limits off: the budget of
// failed authentications holds a token while a credential is checked, and
// more parallel requests than its burst, 10, from one address may find
// none left when the server is slow.
const serverConfig = `[server]
scan_secrets = false
[server.rate_limit]
requests_per_second = -1
failed_auth_per_second = -1
[server.history]
keep_versions = -1
`

// benchServer is a running server with its repo written, and its token.
type benchServer struct {
	srv   *proclab.Server
	token string
}

// benchBinary starts bin (or, when empty, teammemd built from this tree)
// in a lab of its own, writes the repo, restarts the server and measures.
func benchBinary(ctx context.Context, o options, bin string, stderr io.Writer) (result, error) {
	dir, err := os.MkdirTemp("", "teammemd-historybench-")
	if err != nil {
		return result{}, fmt.Errorf("create temporary directory: %w", err)
	}
	defer removeLab(dir, o.keep, stderr)
	name := bin
	if bin == "" {
		bin, name = filepath.Join(dir, "teammemd"), "this tree"
		if err := proclab.Build(ctx, bin, o.tags); err != nil {
			return result{}, err
		}
	}
	lab, err := proclab.New(dir, bin)
	if err != nil {
		return result{}, err
	}
	defer func() {
		if err := lab.Close(); err != nil {
			fmt.Fprintln(stderr, "historybench: stop:", err)
		}
	}()
	bs, err := startSeeded(ctx, lab, o)
	if err != nil {
		return result{}, err
	}
	r, err := measure(ctx, bs, o.parallel)
	r.binary = name
	return r, err
}

// removeLab removes the lab's directory unless it is to be kept.
func removeLab(dir string, keep bool, stderr io.Writer) {
	if keep {
		fmt.Fprintln(stderr, "historybench: kept", dir)
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintln(stderr, "historybench: remove temporary directory:", err)
	}
}

// startSeeded starts the server, writes o.revisions revisions of o.size
// bytes, and starts the server again from its idle footprint.
func startSeeded(ctx context.Context, lab *proclab.Lab, o options) (benchServer, error) {
	if err := lab.SetConfig(serverConfig); err != nil {
		return benchServer{}, err
	}
	srv, err := lab.StartServer(ctx, "server")
	if err != nil {
		return benchServer{}, err
	}
	token, err := srv.CreateToken(ctx, "bench", "**")
	if err != nil {
		return benchServer{}, fmt.Errorf("create token: %w", err)
	}
	bs := benchServer{srv: srv, token: token}
	for i := 0; i < o.revisions; i += perPut {
		if err := bs.put(ctx, writeBatch(i, min(perPut, o.revisions-i), o.size)); err != nil {
			return benchServer{}, err
		}
	}
	if err := srv.Proc().Stop(); err != nil {
		return benchServer{}, err
	}
	return bs, srv.Restart(ctx)
}

// writeBatch is the entries of the PUT that writes revisions first to
// first+n-1: note k of the batch is key k, so every PUT makes a revision
// of each key.
func writeBatch(first, n, size int) map[string]string {
	entries := make(map[string]string, n)
	for k := range n {
		entries[fmt.Sprintf("notes/%d.md", k)] = noteText(first+k, size)
	}
	return entries
}

// noteText is size bytes of text that reads like a note, different for
// every i.
func noteText(i, size int) string {
	var b strings.Builder
	for line := 0; b.Len() < size; line++ {
		fmt.Fprintf(&b, "- revision %d, line %d: deploy with make release, then check the dashboard\n", i, line)
	}
	return b.String()[:size]
}

// put sends one PUT of entries and wants 200.
func (bs benchServer) put(ctx context.Context, entries map[string]string) error {
	body, err := json.Marshal(api.PutRequest{Entries: entries})
	if err != nil {
		return err
	}
	u := bs.srv.URL + api.Path + "?" + url.Values{api.ParamRepo: {benchRepo}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := bs.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return fmt.Errorf("PUT = %d %s", resp.StatusCode, msg)
	}
	return nil
}

// do sends req with the token.
func (bs benchServer) do(req *http.Request) (*http.Response, error) {
	req.Header.Set("Authorization", "Bearer "+bs.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, api.Path, err)
	}
	return resp, nil
}
