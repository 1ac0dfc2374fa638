package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A prune step covers at most pruneBatch revisions holding at most
// pruneBytes of content, so that each step, its own transaction, is short
// and writes interleave with a long prune.
const (
	pruneBatch = 1000
	pruneBytes = 256 << 10
)

// revKey is a revision's primary key, the order prune steps walk in.
type revKey struct {
	repoID  int64
	key     string
	version int64
}

// PruneHistory implements store.Store: it clears the content of every
// revision that is older than olderThan and not among the newest keep of
// its key, and returns how many it cleared. It walks the revisions in short
// steps, each committed on its own; on error or a done ctx it returns the
// count of the steps committed so far. Replicas pruning at once clear each
// revision once.
func (s *Store) PruneHistory(ctx context.Context, keep int, olderThan time.Time) (int64, error) {
	if keep < 0 {
		return 0, errors.New("prune history: keep is negative")
	}
	var total int64
	from := revKey{}
	for {
		n, next, more, err := s.pruneStep(ctx, from, keep, olderThan)
		total += n
		if err != nil || !more {
			return total, err
		}
		from = next
	}
}

// pruneStep prunes the next revisions after from and returns how many it
// cleared, the last revision it covered and whether any may follow.
func (s *Store) pruneStep(ctx context.Context, from revKey, keep int, olderThan time.Time) (int64, revKey, bool, error) {
	to, covered, more, err := s.pruneRangeEnd(ctx, from)
	if err != nil || covered == 0 {
		return 0, from, false, err
	}
	tag, err := s.pool.Exec(ctx, pruneRange,
		from.repoID, from.key, from.version, to.repoID, to.key, to.version, olderThan.UnixNano(), keep)
	if err != nil {
		return 0, from, false, fmt.Errorf("prune history: %w", err)
	}
	return tag.RowsAffected(), to, more, nil
}

// pruneRangeEnd returns the end of the next step after from: the last of
// the next pruneBatch revisions, or of fewer once they hold pruneBytes of
// content, how many revisions the step covers and whether it is the last.
func (s *Store) pruneRangeEnd(ctx context.Context, from revKey) (revKey, int, bool, error) {
	rows, err := s.pool.Query(ctx, `SELECT repo_id, key, version, coalesce(octet_length(content), 0) FROM revisions
		WHERE (repo_id, key, version) > ($1, $2, $3) ORDER BY repo_id, key, version LIMIT $4`,
		from.repoID, from.key, from.version, pruneBatch)
	if err != nil {
		return from, 0, false, fmt.Errorf("prune history: %w", err)
	}
	defer rows.Close()
	last, n, size := from, 0, 0
	for size < pruneBytes && rows.Next() {
		var length int
		if err := rows.Scan(&last.repoID, &last.key, &last.version, &length); err != nil {
			return from, 0, false, fmt.Errorf("prune history: %w", err)
		}
		n++
		size += length
	}
	if err := rows.Err(); err != nil {
		return from, 0, false, fmt.Errorf("prune history: %w", err)
	}
	return last, n, n == pruneBatch || size >= pruneBytes, nil
}

// pruneRange clears the content of the revisions in a range of primary
// keys ($1-$3 excluded, $4-$6 included) older than $7 and below the $8th
// newest version of their key (all of them when $8 is 0).
const pruneRange = `UPDATE revisions SET content = NULL
	WHERE (repo_id, key, version) > ($1, $2, $3) AND (repo_id, key, version) <= ($4, $5, $6)
		AND content IS NOT NULL AND time < $7
		AND ($8 = 0 OR version < (SELECT r.version FROM revisions r
			WHERE r.repo_id = revisions.repo_id AND r.key = revisions.key
			ORDER BY r.version DESC LIMIT 1 OFFSET $8 - 1))`
