package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/server/api"
)

// warmups is how many PUTs each client sends before the clock starts: the
// first creates its repo, the second is its first with If-Match.
const warmups = 2

// keysPerRepo is how many notes each client's PUTs cycle through.
const keysPerRepo = 50

// loadResult is what one server measured under load.
type loadResult struct {
	puts    int
	elapsed time.Duration
	// p50 and p99 are of each PUT's time from sending to the end of its
	// answer.
	p50, p99 time.Duration
	// cpu is the CPU time, user and system, the server's process used
	// while it took the PUTs.
	cpu time.Duration
	// switches is how many times the server's threads left a CPU while it
	// took the PUTs.
	switches int64
}

// switchesPerPut is the server's context switches a PUT.
func (r loadResult) switchesPerPut() float64 { return float64(r.switches) / float64(r.puts) }

// cpuPerPut is the server's CPU time a PUT.
func (r loadResult) cpuPerPut() time.Duration { return r.cpu / time.Duration(r.puts) }

// rate is PUTs a second.
func (r loadResult) rate() float64 { return float64(r.puts) / r.elapsed.Seconds() }

// client is one writer: its repo and the checksum its next PUT names in
// If-Match.
type client struct {
	t        target
	http     *http.Client
	url      string
	id, size int
	sent     int
	checksum string
}

// runLoad sends o.puts PUTs, from o.clients clients each on its repo
// <prefix>-c<n>, after their warm-up, and times them.
func runLoad(ctx context.Context, t target, o options, prefix string) (loadResult, error) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.clients}, Timeout: time.Minute}
	defer hc.CloseIdleConnections()
	clients := make([]*client, o.clients)
	for i := range clients {
		q := url.Values{api.ParamRepo: {fmt.Sprintf("%s-c%02d", prefix, i)}}
		clients[i] = &client{t: t, http: hc, url: t.url + api.Path + "?" + q.Encode(), id: i, size: o.size}
	}
	if _, err := eachClient(ctx, clients, func(int) int { return warmups }); err != nil {
		return loadResult{}, fmt.Errorf("warm up: %w", err)
	}
	cpu0, err := proclab.CPUTime(t.pid)
	if err != nil {
		return loadResult{}, err
	}
	sw0, err := contextSwitches(t.pid)
	if err != nil {
		return loadResult{}, err
	}
	start := time.Now()
	lat, err := eachClient(ctx, clients, func(i int) int { return o.puts/o.clients + boolInt(i < o.puts%o.clients) })
	if err != nil {
		return loadResult{}, err
	}
	res := loadResult{puts: len(lat), elapsed: time.Since(start)}
	cpu1, err := proclab.CPUTime(t.pid)
	if err != nil {
		return loadResult{}, err
	}
	res.cpu = cpu1 - cpu0
	sw1, err := contextSwitches(t.pid)
	if err != nil {
		return loadResult{}, err
	}
	res.switches = sw1 - sw0
	slices.Sort(lat)
	res.p50, res.p99 = percentile(lat, 0.50), percentile(lat, 0.99)
	return res, nil
}

// eachClient has every client send n(its index) PUTs at once and returns
// all their latencies.
func eachClient(ctx context.Context, clients []*client, n func(int) int) ([]time.Duration, error) {
	lats := make([][]time.Duration, len(clients))
	g, gctx := errgroup.WithContext(ctx)
	for i, c := range clients {
		g.Go(func() error {
			lats[i] = make([]time.Duration, 0, n(i))
			for range n(i) {
				t0 := time.Now()
				if err := c.put(gctx); err != nil {
					return err
				}
				lats[i] = append(lats[i], time.Since(t0))
			}
			return nil
		})
	}
	err := g.Wait()
	return slices.Concat(lats...), err
}

// put sends the client's next PUT, a new text of one of its notes, with
// If-Match naming the checksum of its last, and keeps the checksum the
// answer carries.
func (c *client) put(ctx context.Context) error {
	key := fmt.Sprintf("notes/topic-%02d.md", c.sent%keysPerRepo)
	body, err := json.Marshal(api.PutRequest{Entries: map[string]string{key: noteText(c.id, c.sent, c.size)}})
	if err != nil {
		return fmt.Errorf("encode PUT: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.t.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.t.token)
	}
	if c.checksum != "" {
		req.Header.Set("If-Match", api.ETag(c.checksum))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("PUT: %w", err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read PUT answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("PUT = %d %s", resp.StatusCode, out)
	}
	var pr api.PutResponse
	if err := json.Unmarshal(out, &pr); err != nil || pr.Checksum == "" {
		return fmt.Errorf("PUT answer without a checksum: %s", out)
	}
	c.checksum = pr.Checksum
	c.sent++
	return nil
}

// percentile is the p-th of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(p*float64(len(sorted)-1))]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
