package scan

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Paths scans files and directories (recursively, skipping .git
// directories and symlinks) on the worker pool and returns every finding,
// sorted by file and position.
func (s *Scanner) Paths(ctx context.Context, paths []string) ([]Finding, error) {
	g, gctx := errgroup.WithContext(ctx)
	files := make(chan string)
	g.Go(func() error {
		defer close(files)
		for _, p := range paths {
			if err := walk(gctx, p, files); err != nil {
				return err
			}
		}
		return nil
	})
	var (
		mu  sync.Mutex
		all []Finding
	)
	for range s.parallelism() {
		g.Go(func() error {
			for path := range files {
				found, err := s.scanPath(gctx, path)
				if err != nil {
					return err
				}
				mu.Lock()
				all = append(all, found...)
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column), cmp.Compare(a.RuleID, b.RuleID))
	})
	return all, nil
}

func (s *Scanner) scanPath(ctx context.Context, path string) ([]Finding, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	return s.File(ctx, filepath.ToSlash(path), data)
}

// walk sends every regular file under root to files. A root that is itself
// a symlink is followed; symlinks inside directories are not.
func walk(ctx context.Context, root string, files chan<- string) error {
	info, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	if !info.IsDir() {
		return send(ctx, files, root)
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case !d.Type().IsRegular():
			return nil
		}
		return send(ctx, files, path)
	})
}

func send(ctx context.Context, files chan<- string, path string) error {
	select {
	case files <- path:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
