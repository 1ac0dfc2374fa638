package crashtest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/teammemd/teammemd/internal/proclab"
	"github.com/teammemd/teammemd/server/api"
)

// The repos and keys the storm writes.
var (
	stormRepos = []string{"storm/one", "storm/two", "storm/three", "storm/four", "storm/five", "storm/six", "storm/seven", "storm/eight"}
	stormKeys  = []string{"MEMORY.md", "deploy.md", "ci.md", "oncall.md", "db/restore.md", "db/backup.txt"}
)

// Outcomes of a PUT.
const (
	acked   = "acked"   // 200: the server says it is stored
	refused = "refused" // 412: the server says nothing was written
	unknown = "unknown" // no answer: the server may or may not have stored it
)

// put is one PUT a writer sent.
type put struct {
	writer, seq int
	repo        string
	sums        map[string]string // key -> entry checksum of the value sent
	outcome     string
	status      int   // the HTTP status; 0 without an answer
	version     int64 // the version acknowledged
	sent        time.Time
}

func (p put) String() string {
	return fmt.Sprintf("writer %d's PUT #%d to %s (%d entries, %s)", p.writer, p.seq, p.repo, len(p.sums), p.outcome)
}

// stormWriter sends If-Match PUTs of one to three entries to random repos,
// each value unique, with the last checksum it saw of that repo, and probes
// the hashes after a 412.
type stormWriter struct {
	id     int
	base   string
	token  string
	client *http.Client
	rng    *rand.Rand
	known  map[string]string // repo -> last checksum seen
	puts   []put             // the writer goroutine's until run returns
}

func newStormWriter(id int, base, token string, seed uint64) *stormWriter {
	return &stormWriter{
		id: id, base: base, token: token, known: map[string]string{},
		client: &http.Client{Timeout: 30 * time.Second},
		rng:    rand.New(rand.NewPCG(seed, uint64(id))),
	}
}

// run writes until ctx is done. A refused connection (the server is down)
// is retried after a short pause, not in a tight loop.
func (w *stormWriter) run(ctx context.Context) {
	for ctx.Err() == nil {
		repo := stormRepos[w.rng.IntN(len(stormRepos))]
		p := w.send(ctx, repo)
		w.puts = append(w.puts, p)
		switch p.outcome {
		case refused:
			w.probe(ctx, repo)
		case unknown:
			if proclab.Pause(ctx, 20*time.Millisecond) != nil {
				return
			}
		}
	}
}

// send sends one PUT and records what came of it.
func (w *stormWriter) send(ctx context.Context, repo string) put {
	p := put{writer: w.id, seq: len(w.puts) + 1, repo: repo, sums: map[string]string{}, outcome: unknown, sent: time.Now()}
	entries := map[string]string{}
	for _, i := range w.rng.Perm(len(stormKeys))[:1+w.rng.IntN(3)] {
		key := stormKeys[i]
		entries[key] = value(p, key, w.rng.IntN(30))
		p.sums[key] = api.EntryChecksum(entries[key])
	}
	body, _ := json.Marshal(api.PutRequest{Entries: entries}) // a map of strings always encodes
	var res api.PutResponse
	ifMatch := cmp.Or(w.known[repo], api.EmptyRepoChecksum)
	status, err := w.do(ctx, http.MethodPut, repo, ifMatch, body, &res)
	p.status = status
	switch {
	case err != nil:
	case status == http.StatusOK:
		p.outcome, p.version = acked, res.Version
		w.known[repo] = res.Checksum
	case status == http.StatusPreconditionFailed:
		p.outcome = refused
	}
	return p
}

// value is a unique value of a few lines to a few KB.
func value(p put, key string, lines int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nwriter %d, PUT %d, to %s\n", key, p.writer, p.seq, p.repo)
	for i := range lines {
		fmt.Fprintf(&b, "- line %d of writer %d's PUT %d: the storm goes on.\n", i+1, p.writer, p.seq)
	}
	return b.String()
}

// probe learns the repo's current checksum.
func (w *stormWriter) probe(ctx context.Context, repo string) {
	var h api.HashesResponse
	status, err := w.do(ctx, http.MethodGet, repo, "", nil, &h)
	switch {
	case err == nil && status == http.StatusOK:
		w.known[repo] = h.Checksum
	case err == nil && status == http.StatusNotFound:
		w.known[repo] = api.EmptyRepoChecksum
	}
}

// do sends a PUT (with If-Match when ifMatch is set) or a hash probe and
// decodes a 200 answer into out.
func (w *stormWriter) do(ctx context.Context, method, repo, ifMatch string, body []byte, out any) (int, error) {
	q := url.Values{api.ParamRepo: {repo}}
	if method == http.MethodGet {
		q.Set(api.ParamView, api.ViewHashes)
	}
	req, err := http.NewRequestWithContext(ctx, method, w.base+api.Path+"?"+q.Encode(), bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+w.token)
	req.Header.Set("Content-Type", "application/json")
	if ifMatch != "" {
		req.Header.Set("If-Match", api.ETag(ifMatch))
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(data, out); err != nil {
			return 0, fmt.Errorf("decode %d answer: %w", resp.StatusCode, err)
		}
	}
	return resp.StatusCode, nil
}
