package store

import (
	"context"
	"fmt"
)

// YieldRevisions runs query through q and calls yield with each revision
// as it reads it (scanRevision names the columns query selects); it stops
// at the first error yield returns, which it returns as it is.
func YieldRevisions(ctx context.Context, q Querier, yield func(Revision) error, query string, args ...any) error {
	var yieldErr error
	err := q.Query(ctx, func(r Scanner) error {
		rev, err := scanRevision(r)
		if err != nil {
			return err
		}
		yieldErr = yield(rev)
		return yieldErr
	}, query, args...)
	switch {
	case yieldErr != nil:
		return yieldErr
	case err != nil:
		return fmt.Errorf("read history: %w", err)
	}
	return nil
}

// scanRevision reads one row of a history query: the repo's slug, the
// key, the version, the entry checksum, subject, client, time and content
// of the revision, and the content's size.
func scanRevision(r Scanner) (Revision, error) {
	var rev Revision
	var sum *string
	var ns int64
	var content []byte
	if err := r.Scan(&rev.Repo, &rev.Key, &rev.Version, &sum, &rev.Subject, &rev.Client, &ns, &content, &rev.Size); err != nil {
		return rev, err
	}
	fillRevision(&rev, sum, ns, content)
	return rev, nil
}
