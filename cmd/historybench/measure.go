package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/server/api"
)

// result is what one binary's run measured.
type result struct {
	binary string
	// revisions and bytes are of the page each request got.
	revisions int
	bytes     int64
	// rssKB is the server's resident set before the requests, peakKB its
	// peak while they ran.
	rssKB, peakKB int64
	wall          time.Duration
}

// measure reads the server's resident set, sends parallel requests for
// the largest history page at once, and reads the peak.
func measure(ctx context.Context, bs benchServer, parallel int) (result, error) {
	proc := bs.srv.Proc()
	var r result
	var err error
	if r.rssKB, err = proc.MemoryKB("VmRSS"); err != nil {
		return r, err
	}
	if err := proc.ResetPeakMemory(); err != nil {
		return r, err
	}
	sizes := make([]int64, parallel)
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	for i := range parallel {
		g.Go(func() error {
			n, err := bs.largestPage(gctx, io.Discard)
			sizes[i] = n
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return r, err
	}
	r.wall = time.Since(start)
	if r.peakKB, err = proc.MemoryKB("VmHWM"); err != nil {
		return r, err
	}
	r.bytes = sizes[0]
	r.revisions, err = bs.countRevisions(ctx)
	return r, err
}

// largestPage asks for the newest history page of the repo at the largest
// limit, with content, and copies its body to w.
func (bs benchServer) largestPage(ctx context.Context, w io.Writer) (int64, error) {
	q := url.Values{api.ParamRepo: {benchRepo}, api.ParamLimit: {"500"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, bs.srv.URL+api.HistoryPath+"?"+q.Encode(), nil)
	if err != nil {
		return 0, err
	}
	resp, err := bs.do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("history = %d", resp.StatusCode)
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("read history page: %w", err)
	}
	return n, nil
}

// countRevisions fetches the page once more, after the measurement, and
// counts its revisions.
func (bs benchServer) countRevisions(ctx context.Context) (int, error) {
	pr, pw := io.Pipe()
	go func() {
		_, err := bs.largestPage(ctx, pw)
		pw.CloseWithError(err)
	}()
	var page struct {
		Revisions []struct {
			Version int64 `json:"version"`
		} `json:"revisions"`
	}
	err := json.NewDecoder(pr).Decode(&page)
	pr.CloseWithError(err)
	if err != nil {
		return 0, fmt.Errorf("decode history page: %w", err)
	}
	return len(page.Revisions), nil
}
