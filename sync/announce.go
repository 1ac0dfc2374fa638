package memsync

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// announceTimeout bounds the one attempt of an AnnounceWrite.
const announceTimeout = 5 * time.Second

// AnnounceWrite tells the server that this client is about to write to
// repo, whose checksum it holds (PROTOCOL.md section 21): a hash probe
// with the write hint header, sent once, whose answer it does not read.
// The server hints its teammates' change waits at once, and is itself
// running when the write comes.
func (c *Client) AnnounceWrite(ctx context.Context, repo, checksum string) error {
	rq := request{op: OpProbe, repo: repo, method: http.MethodGet, url: c.query(repo, "0"), ifNoneMatch: checksum,
		timeout: announceTimeout, once: true, header: http.Header{api.HeaderHint: {api.HintWrite}}}
	if _, err := c.do(ctx, rq, nil); err != nil {
		return fmt.Errorf("announce a write to %s: %w", repo, err)
	}
	return nil
}

// AnnounceWrite announces a push about to run (Client.AnnounceWrite) on
// a goroutine of its own, which ends with its request or ctx; one at a
// time. A personal lane, and an engine that never synced, announce
// nothing: a lane's waits take no hints, and a probe from no checksum
// would fetch every checksum of the repo for nothing.
func (e *Engine) AnnounceWrite(ctx context.Context) {
	sum := e.Checksum()
	if e.client == nil || e.cfg.Lane != "" || sum == "" || !e.announcing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer e.announcing.Store(false)
		if err := e.client.AnnounceWrite(ctx, e.cfg.Repo, sum); err != nil && ctx.Err() == nil {
			e.log.Debug("write not announced", "err", err)
		}
	}()
}
