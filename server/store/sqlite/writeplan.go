package sqlite

import (
	"context"
	"fmt"
	"slices"

	"github.com/teammemd/teammemd/server/store"
)

// writePlan writes p to the database and returns the repo's next state. It
// runs in the leader of a group commit only.
func (s *Store) writePlan(ctx context.Context, tx *stmtTx, cur *repoState, p store.WritePlan, w store.Write) (*repoState, error) {
	next := &repoState{
		id:               cur.id,
		slug:             cur.slug,
		version:          cur.version + 1,
		lastModified:     w.Time.UTC().Round(0),
		compactedThrough: cur.compactedThrough,
	}
	if next.id == 0 {
		res, err := tx.ExecContext(ctx, insertRepo, cur.slug)
		if err != nil {
			return nil, fmt.Errorf("create repo: %w", err)
		}
		if next.id, err = res.LastInsertId(); err != nil {
			return nil, fmt.Errorf("create repo: %w", err)
		}
	}
	changes := make([]entryLine, 0, len(p.Changed))
	for _, k := range p.Changed {
		l, err := writeKey(ctx, tx, next, k, p, w)
		if err != nil {
			return nil, err
		}
		changes = append(changes, l)
	}
	lines, unchanged := mergeLines(cur.lines, changes)
	lines, kept, err := compactMarkers(ctx, tx, next, lines, w)
	if err != nil {
		return nil, err
	}
	next.setLines(lines)
	if err := sumLines(next, cur, min(unchanged, kept)); err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, updateRepo, next.version, next.lastModified.UnixNano(), next.checksum, next.compactedThrough, next.id)
	if err != nil {
		return nil, fmt.Errorf("update repo: %w", err)
	}
	return next, nil
}

// writeKey writes the change p makes to key, records it in history with
// w's subject and client, and returns the key's new line.
func writeKey(ctx context.Context, tx *stmtTx, next *repoState, key string, p store.WritePlan, w store.Write) (entryLine, error) {
	ns := next.lastModified.UnixNano()
	u, ok := p.Upserts[key]
	if !ok {
		ms := next.lastModified.UnixMilli()
		if _, err := tx.ExecContext(ctx, tombstoneEntry, ms, next.id, key); err != nil {
			return entryLine{}, fmt.Errorf("delete entry: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertRevision, next.id, key, next.version, nil, w.Subject, w.Client, ns, nil); err != nil {
			return entryLine{}, fmt.Errorf("record revision: %w", err)
		}
		return entryLine{key: key, deletedAt: ms}, nil
	}
	value := []byte(u.Value)
	if _, err := tx.ExecContext(ctx, upsertEntry, next.id, key, u.Checksum, value); err != nil {
		return entryLine{}, fmt.Errorf("write entry: %w", err)
	}
	if _, err := tx.ExecContext(ctx, insertRevision, next.id, key, next.version, u.Checksum, w.Subject, w.Client, ns, value); err != nil {
		return entryLine{}, fmt.Errorf("record revision: %w", err)
	}
	return entryLine{key: key, sum: u.Checksum}, nil
}

// compactMarkers drops from the database and from lines, which are next's,
// the deletion markers over w's bound, and records next's version as the
// repo's compactedThrough when it drops any. It returns the lines left and
// how many lines at their start it left as they were.
func compactMarkers(ctx context.Context, tx *stmtTx, next *repoState, lines []entryLine, w store.Write) ([]entryLine, int, error) {
	if w.Deletions == (store.DeletionBound{}) {
		return lines, len(lines), nil
	}
	deleted := map[string]int64{}
	for _, l := range lines {
		if !l.live() {
			deleted[l.key] = l.deletedAt
		}
	}
	drop := w.Deletions.Compact(deleted, next.lastModified)
	if len(drop) == 0 {
		return lines, len(lines), nil
	}
	for _, k := range drop {
		if _, err := tx.ExecContext(ctx, dropMarker, next.id, k); err != nil {
			return nil, 0, fmt.Errorf("compact deletion marker: %w", err)
		}
	}
	next.compactedThrough = next.version
	first, _ := slices.BinarySearchFunc(lines, drop[0], compareLineKey)
	return slices.DeleteFunc(lines, func(l entryLine) bool {
		_, dropped := slices.BinarySearch(drop, l.key)
		return dropped && !l.live()
	}), first, nil
}
