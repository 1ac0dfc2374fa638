package scan

import (
	"context"
	"runtime"

	"golang.org/x/sync/errgroup"
)

// parallelism is how many files are scanned at once.
func (s *Scanner) parallelism() int {
	if s.workers > 0 {
		return s.workers
	}
	return runtime.GOMAXPROCS(0)
}

// forEach runs fn for 0..n-1 on the worker pool and returns the first
// error; the detector is shared, it is safe for concurrent use. One item
// runs on the caller's goroutine: a server's PUT mostly writes one entry,
// and a worker of its own would cost it a goroutine and two hand-offs.
func (s *Scanner) forEach(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	if n == 1 {
		if err := fn(ctx, 0); err != nil {
			return err
		}
		return ctx.Err()
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.parallelism())
	for i := range n {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return fn(gctx, i) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}
