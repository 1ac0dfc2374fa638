package memsync

import (
	"context"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"
)

// fileChecks reads and scans a push's changed files in the background, on
// a pool as wide as the CPUs, so the first batch goes out while later
// files are still being scanned; a push of one file checks it at once.
// Results are taken in key order.
type fileChecks struct {
	out    []checkedFile
	errs   []error
	done   []chan struct{} // closed when out[i] and errs[i] are set
	cancel context.CancelFunc
	ended  chan struct{} // closed when every worker has returned
}

// startChecks starts checking keys, taking from ahead the files read
// ahead. Its workers touch no session state. The caller must call stop.
func (s *session) startChecks(ctx context.Context, keys []string, ahead map[string]warmFile) *fileChecks {
	ctx, cancel := context.WithCancel(ctx)
	c := &fileChecks{
		out:    make([]checkedFile, len(keys)),
		errs:   make([]error, len(keys)),
		done:   make([]chan struct{}, len(keys)),
		cancel: cancel,
		ended:  make(chan struct{}),
	}
	for i := range c.done {
		c.done[i] = make(chan struct{})
	}
	if len(keys) == 1 {
		// One save: nothing to scan while its batch goes out, so its check
		// runs here, without handing it to another thread and back.
		defer close(c.ended)
		c.check(ctx, s, 0, keys[0], ahead)
		return c
	}
	go func() {
		defer close(c.ended)
		var g errgroup.Group
		g.SetLimit(runtime.GOMAXPROCS(0))
		for i, k := range keys {
			if ctx.Err() != nil {
				c.check(ctx, s, i, k, ahead) // stopped: the rest are not checked
				continue
			}
			g.Go(func() error {
				c.check(ctx, s, i, k, ahead)
				return nil
			})
		}
		g.Wait()
	}()
	return c
}

// check checks the i-th key, k, unless ctx is done, and marks it done.
func (c *fileChecks) check(ctx context.Context, s *session, i int, k string, ahead map[string]warmFile) {
	if c.errs[i] = ctx.Err(); c.errs[i] == nil {
		c.out[i], c.errs[i] = s.checkFile(ctx, k, ahead[k])
	}
	close(c.done[i])
}

// get waits for the check of the i-th key.
func (c *fileChecks) get(i int) (checkedFile, error) {
	<-c.done[i]
	return c.out[i], c.errs[i]
}

// stop ends the checks not yet made and waits for the workers to return.
func (c *fileChecks) stop() {
	c.cancel()
	<-c.ended
}

// sendChanged pushes the changed files of local and the deletes: it scans
// the changed files in key order, in the background, and sends each batch
// as soon as it is full, chaining If-Match and recording each accepted
// batch in state at once; the deletes follow the entries. A batch of
// several items refused for good without naming a key is sent again one
// item at a time, so the refusal lands on the entry that caused it. Once a
// batch fails, nothing more is sent, but every file's verdict is still
// taken, so the report names every file blocked or left out, as when all
// were scanned before the first batch.
func (s *session) sendChanged(ctx context.Context, local map[string]IndexEntry, deletes []string) error {
	keys := s.unshadowed(s.pushKeys(local), deletes)
	checks := s.startChecks(ctx, keys, s.aheadOf(local, keys))
	defer checks.stop()
	room := s.newCapRoom(len(deletes))
	pk := newPacker(api.BatchMaxBytes)
	out := pushSender{s: s, ifMatch: s.st.LastKnownChecksum}
	uploads := 0
	for i, k := range keys {
		c, err := checks.get(i)
		if err != nil {
			return out.failedOr(err)
		}
		u, ok := s.verdict(k, c)
		if !ok || !room.admit(u) {
			continue
		}
		uploads++
		if b, full := pk.add(u); full {
			out.send(ctx, b)
		}
	}
	if s.rep.OverCap != nil {
		s.rep.OverCap.Local = len(local)
	}
	for _, k := range deletes {
		if b, full := pk.addDelete(k); full {
			out.send(ctx, b)
		}
	}
	if b, ok := pk.flush(); ok {
		out.send(ctx, b)
	}
	s.log.Debug("push planned", "uploads", uploads, "deletes", len(deletes))
	return out.err
}

// pushSender sends a push's batches in turn until one fails.
type pushSender struct {
	s       *session
	ifMatch string
	err     error // the first batch's failure; nothing is sent after it
}

// failedOr returns the send's failure, else err.
func (p *pushSender) failedOr(err error) error {
	if p.err != nil {
		return p.err
	}
	return err
}

// send sends b, unless a batch before it failed.
func (p *pushSender) send(ctx context.Context, b batch) {
	if p.err == nil {
		p.err = p.s.sendBatch(ctx, b, &p.ifMatch)
	}
}

// sendBatch sends b with If-Match *ifMatch, which it moves to the checksum
// the server answers; a batch refused for good without naming its entry is
// sent again one item at a time.
func (s *session) sendBatch(ctx context.Context, b batch, ifMatch *string) error {
	queue := []batch{b}
	for len(queue) > 0 {
		b := queue[0]
		queue = queue[1:]
		body, err := encodePut(b)
		if err != nil {
			return err
		}
		s.rep.PUTs++
		savetrace.Mark("push.put", "")
		resp, err := s.remote.Put(ctx, s.cfg.Repo, *ifMatch, body)
		savetrace.Mark("push.answered", "")
		if parts := splitRefused(err, b); parts != nil {
			queue = append(parts, queue...)
			continue
		}
		if err != nil {
			return s.noteRejection(err, b)
		}
		if resp.Review != nil {
			s.acceptProposal(b, resp)
		} else {
			s.accept(b, resp)
		}
		s.log.Debug("batch pushed", "entries", len(b.Entries), "deletes", len(b.Deletes))
		s.chain.note(*ifMatch, b, resp)
		*ifMatch = resp.Checksum
	}
	return nil
}
