package scan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/teammemd/teammemd/server/api"
)

// Paths scans files and directories (recursively, skipping .git
// directories and symlinks) on the worker pool and returns every finding,
// sorted by file and position. Each file's name below the directory given
// (a file given alone: its base name) is scanned too, as Key scans a key;
// a file whose name holds a secret is reported under that name redacted.
func (s *Scanner) Paths(ctx context.Context, paths []string) ([]Finding, error) {
	found, _, err := s.CountedPaths(ctx, paths)
	return found, err
}

// CountedPaths is Paths that also says how many files it scanned, for a
// summary of a scan that found nothing. A path that cannot be read (a
// root that does not exist, a file or directory it may not open) does not
// stop the scan: every other path is scanned, and the findings come back
// with a *PathsError naming each path that was not.
func (s *Scanner) CountedPaths(ctx context.Context, paths []string) ([]Finding, int, error) {
	g, gctx := errgroup.WithContext(ctx)
	files := make(chan walked)
	var unread pathProblems
	g.Go(func() error {
		defer close(files)
		for _, p := range paths {
			if err := walk(gctx, p, files, &unread); err != nil {
				return err
			}
		}
		return nil
	})
	var (
		mu      sync.Mutex
		all     []Finding
		scanned int
	)
	for range s.parallelism() {
		g.Go(func() error {
			for f := range files {
				found, err := s.scanPath(gctx, f, &unread)
				if err != nil {
					return err
				}
				mu.Lock()
				all = append(all, found...)
				scanned++
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	slices.SortFunc(all, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column), cmp.Compare(a.RuleID, b.RuleID))
	})
	return all, scanned, unread.err()
}

// PathsError names the paths a scan could not read; the scan's findings
// are those of every other path.
type PathsError struct{ Errs []error }

func (e *PathsError) Error() string { return errors.Join(e.Errs...).Error() }

func (e *PathsError) Unwrap() []error { return e.Errs }

// pathProblems gathers the paths a scan could not read, from the walk and
// the workers at once.
type pathProblems struct {
	mu   sync.Mutex
	errs []error
}

func (p *pathProblems) add(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errs = append(p.errs, fmt.Errorf("scan: %w", err))
}

// err is a *PathsError of the problems in the order met, nil when none.
func (p *pathProblems) err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.errs) == 0 {
		return nil
	}
	return &PathsError{Errs: slices.Clone(p.errs)}
}

// walked is one file found by walk: its path and its name below the
// directory given.
type walked struct {
	path, name string
}

func (s *Scanner) scanPath(ctx context.Context, f walked, unread *pathProblems) ([]Finding, error) {
	data, err := os.ReadFile(f.path)
	if err != nil {
		unread.add(err)
		return nil, nil
	}
	path := filepath.ToSlash(f.path)
	found, err := s.File(ctx, path, data)
	if err != nil {
		return nil, err
	}
	named, err := s.Key(ctx, f.name)
	if err != nil || len(named) == 0 {
		return found, err
	}
	shown := strings.TrimSuffix(path, f.name) + api.RedactKey(f.name)
	return withFile(append(named, found...), shown), nil
}

// walk sends every regular file under root to files. A root that is itself
// a symlink is followed; symlinks inside directories are not. A root, file
// or directory that cannot be read is added to unread, and the walk goes
// on; only a done ctx stops it.
func walk(ctx context.Context, root string, files chan<- walked, unread *pathProblems) error {
	info, err := os.Stat(root)
	if err != nil {
		unread.add(err)
		return nil
	}
	if !info.IsDir() {
		return send(ctx, files, walked{root, filepath.Base(root)})
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			unread.add(err)
			return skipUnread(d)
		}
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case !d.Type().IsRegular():
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		return send(ctx, files, walked{path, filepath.ToSlash(rel)})
	})
}

// skipUnread is what the walk does past an entry it could not read: a
// directory's contents are skipped, the walk goes on.
func skipUnread(d fs.DirEntry) error {
	if d != nil && d.IsDir() {
		return filepath.SkipDir
	}
	return nil
}

func send(ctx context.Context, files chan<- walked, f walked) error {
	select {
	case files <- f:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
