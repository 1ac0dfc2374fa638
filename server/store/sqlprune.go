package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A prune step covers at most PruneBatch revisions holding at most
// PruneBytes of content, so that each step, its own transaction, is short
// (on SQLite, it holds the write lock briefly) and writes interleave with
// a long prune.
const (
	PruneBatch = 1000
	PruneBytes = 256 << 10
)

// RevisionKey is a revision's primary key, the order prune steps walk in.
type RevisionKey struct {
	RepoID  int64
	Key     string
	Version int64
}

// The revisions table's statements for pruning, the same in every SQL
// dialect the backends speak.
const (
	// pruneRangeEnd lists the revisions after ($1, $2, $3), at most $4,
	// with the size of their content, which octet_length reads without
	// the value.
	pruneRangeEnd = `SELECT repo_id, key, version, coalesce(octet_length(content), 0) FROM revisions
		WHERE (repo_id, key, version) > ($1, $2, $3) ORDER BY repo_id, key, version LIMIT $4`
	// pruneRange clears the content of the revisions in a range of
	// primary keys ($1-$3 excluded, $4-$6 included) older than $7 and
	// below the $8th newest version of their key (all of them when $8 is
	// 0).
	pruneRange = `UPDATE revisions SET content = NULL
		WHERE (repo_id, key, version) > ($1, $2, $3) AND (repo_id, key, version) <= ($4, $5, $6)
			AND content IS NOT NULL AND time < $7
			AND ($8 = 0 OR version < (SELECT r.version FROM revisions r
				WHERE r.repo_id = revisions.repo_id AND r.key = revisions.key
				ORDER BY r.version DESC LIMIT 1 OFFSET $8 - 1))`
)

// SQLPruner implements Store.PruneHistory on a backend's SQL.
type SQLPruner struct {
	DB SQL
}

// PruneHistory implements Store: it clears the content of every revision
// that is older than olderThan and not among the newest keep of its key,
// and returns how many it cleared. It walks the revisions in short steps,
// each committed on its own; on error or a done ctx it returns the count
// of the steps committed so far. Processes pruning one database at once
// clear each revision once.
func (p SQLPruner) PruneHistory(ctx context.Context, keep int, olderThan time.Time) (int64, error) {
	if keep < 0 {
		return 0, errors.New("prune history: keep is negative")
	}
	var total int64
	from := RevisionKey{}
	for {
		n, next, more, err := PruneStep(ctx, p.DB, from, PruneBatch, keep, olderThan)
		total += n
		if err != nil || !more {
			return total, err
		}
		from = next
	}
}

// PruneStep prunes, as PruneHistory does, the next batch revisions after
// from, or fewer once they hold PruneBytes of content, in one
// transaction. It returns how many it cleared, the last revision it
// covered and whether any may follow.
func PruneStep(ctx context.Context, db SQL, from RevisionKey, batch, keep int, olderThan time.Time) (int64, RevisionKey, bool, error) {
	to, covered, more, err := pruneStepEnd(ctx, db, from, batch)
	if err != nil || covered == 0 {
		return 0, from, false, err
	}
	n, err := db.Exec(ctx, Stmt{SQL: pruneRange, Args: []any{
		from.RepoID, from.Key, from.Version, to.RepoID, to.Key, to.Version, olderThan.UnixNano(), int64(keep)}})
	if err != nil {
		return 0, from, false, fmt.Errorf("prune history: %w", err)
	}
	return n, to, more, nil
}

// errStepFull ends the reading of a prune step's revisions once they hold
// PruneBytes of content.
var errStepFull = errors.New("prune step full")

// pruneStepEnd returns the end of the step after from: the last of the
// next batch revisions, or of fewer once they hold PruneBytes of content,
// how many revisions the step covers and whether it is the last.
func pruneStepEnd(ctx context.Context, db SQL, from RevisionKey, batch int) (RevisionKey, int, bool, error) {
	last, n, size := from, 0, 0
	err := db.Query(ctx, func(r Scanner) error {
		if size >= PruneBytes {
			return errStepFull
		}
		var length int
		if err := r.Scan(&last.RepoID, &last.Key, &last.Version, &length); err != nil {
			return err
		}
		n++
		size += length
		return nil
	}, pruneRangeEnd, from.RepoID, from.Key, from.Version, int64(batch))
	if err != nil && !errors.Is(err, errStepFull) {
		return from, 0, false, fmt.Errorf("prune history: %w", err)
	}
	return last, n, n == batch || size >= PruneBytes, nil
}
