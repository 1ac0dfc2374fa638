package linearizetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/teammemd/teammemd/server/api"
)

// workload is what the clients do: how many of them, how many operations
// each, on which repos.
type workload struct {
	clients, opsPerClient int
	repos                 []string
	seed                  uint64
}

// client sends random operations and records each with its call and
// return times.
type client struct {
	id    int
	base  string
	token string
	http  *http.Client
	rng   *rand.Rand
	known map[string]string // repo -> the last checksum this client saw
	start time.Time
	ops   []porcupine.Operation
}

// run has every client send its operations at once and returns the
// recorded history. A request without an answer fails the run: on
// loopback every request is answered.
func (wl workload) run(ctx context.Context, base, token string) ([]porcupine.Operation, error) {
	start := time.Now()
	clients := make([]*client, wl.clients)
	errs := make([]error, wl.clients)
	var wg sync.WaitGroup
	for i := range clients {
		c := &client{
			id: i, base: base, token: token, start: start, known: map[string]string{},
			http: &http.Client{Timeout: time.Minute},
			rng:  rand.New(rand.NewPCG(wl.seed, uint64(i))),
		}
		clients[i] = c
		wg.Go(func() { errs[i] = c.run(ctx, wl) })
	}
	wg.Wait()
	var history []porcupine.Operation
	for i, c := range clients {
		if errs[i] != nil {
			return nil, errs[i]
		}
		history = append(history, c.ops...)
	}
	return history, nil
}

func (c *client) run(ctx context.Context, wl workload) error {
	for n := range wl.opsPerClient {
		in := c.next(wl.repos, n)
		call := time.Since(c.start).Nanoseconds()
		out, err := c.send(ctx, in, n)
		if err != nil {
			return fmt.Errorf("client %d, operation %d (%s %s): %w", c.id, n, in.op, in.repo, err)
		}
		ret := time.Since(c.start).Nanoseconds()
		c.ops = append(c.ops, porcupine.Operation{ClientId: c.id, Input: in, Call: call, Output: out, Return: ret})
		if out.status == http.StatusOK {
			c.known[in.repo] = out.checksum
		}
	}
	return nil
}

// next picks an operation: three in ten full pulls, three in ten hash
// probes, four in ten PUTs with the checksum this client saw last as
// If-Match, setting one or two keys and sometimes deleting another.
func (c *client) next(repos []string, n int) input {
	in := input{repo: repos[c.rng.IntN(len(repos))]}
	switch r := c.rng.IntN(10); {
	case r < 3:
		in.op = opGet
	case r < 6:
		in.op = opHashes
	default:
		in.op = opPut
		in.ifMatch = c.known[in.repo]
		if in.ifMatch == "" {
			in.ifMatch = api.EmptyRepoChecksum
		}
		perm := c.rng.Perm(nKeys)
		for _, k := range perm[:1+c.rng.IntN(2)] {
			in.sets[k] = api.EntryChecksum(c.value(n, k))
		}
		if c.rng.IntN(4) == 0 && in.sets[perm[nKeys-1]] == "" {
			in.deletes[perm[nKeys-1]] = true
		}
	}
	return in
}

// value is the unique value operation n of this client writes to key k.
func (c *client) value(n, k int) string {
	return fmt.Sprintf("# %s\n\nclient %d wrote this in operation %d.\n", keys[k], c.id, n)
}

// send sends one operation and reduces the answer to an output.
func (c *client) send(ctx context.Context, in input, n int) (output, error) {
	q := url.Values{api.ParamRepo: {in.repo}}
	method, body := http.MethodGet, []byte(nil)
	switch in.op {
	case opHashes:
		q.Set(api.ParamView, api.ViewHashes)
	case opPut:
		method = http.MethodPut
		body = c.putBody(in, n)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+api.Path+"?"+q.Encode(), bytes.NewReader(body))
	if err != nil {
		return output{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if in.ifMatch != "" {
		req.Header.Set("If-Match", api.ETag(in.ifMatch))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return output{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return output{}, err
	}
	return decode(in.op, resp.StatusCode, data)
}

// putBody is the PUT's JSON body: the values whose checksums in.sets holds.
func (c *client) putBody(in input, n int) []byte {
	req := api.PutRequest{Entries: map[string]string{}}
	for k := range nKeys {
		if in.sets[k] != "" {
			req.Entries[keys[k]] = c.value(n, k)
		}
		if in.deletes[k] {
			req.SoftDeleteKeys = append(req.SoftDeleteKeys, keys[k])
		}
	}
	body, _ := json.Marshal(req) // strings and a slice of strings always encode
	return body
}

// decode reduces a 200 answer to the model's output; other statuses keep
// the status alone.
func decode(op string, status int, data []byte) (output, error) {
	out := output{status: status}
	if status != http.StatusOK {
		return out, nil
	}
	switch op {
	case opGet:
		var full api.FullResponse
		if err := json.Unmarshal(data, &full); err != nil {
			return out, fmt.Errorf("decode full pull: %w", err)
		}
		sums := map[string]string{}
		for k, v := range full.Content.Entries {
			sums[k] = api.EntryChecksum(v)
		}
		out.version, out.checksum = full.Version, full.Checksum
		return out, reduce(&out, sums, full.Content.DeletedEntries)
	case opHashes:
		var h api.HashesResponse
		if err := json.Unmarshal(data, &h); err != nil {
			return out, fmt.Errorf("decode hashes: %w", err)
		}
		out.version, out.checksum = h.Version, h.Checksum
		return out, reduce(&out, h.EntryChecksums, h.DeletedEntries)
	default:
		var p api.PutResponse
		if err := json.Unmarshal(data, &p); err != nil {
			return out, fmt.Errorf("decode PUT answer: %w", err)
		}
		out.version, out.checksum = p.Version, p.Checksum
		return out, nil
	}
}

// reduce fills the output's per-key sums and tombstones, and refuses an
// answer whose checksum does not match its own entries or which holds a
// key the clients never wrote.
func reduce(out *output, sums map[string]string, deleted map[string]int64) error {
	if got := api.RepoChecksum(sums, deleted); got != out.checksum {
		return fmt.Errorf("answer's checksum %s does not match its entries (%s)", out.checksum, got)
	}
	found := 0
	for i, k := range keys {
		out.sums[i] = sums[k]
		_, out.deleted[i] = deleted[k]
		if out.sums[i] != "" || out.deleted[i] {
			found++
		}
	}
	if found != len(sums)+len(deleted) {
		return fmt.Errorf("answer holds keys the clients never wrote: %v %v", sums, deleted)
	}
	return nil
}
