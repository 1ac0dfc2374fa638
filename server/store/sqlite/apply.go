package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// queryer is what reading a repo's state needs: a transaction on either
// pool, or the writer's transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// loadState returns the current state of slug within tx: the state an
// earlier write of the same batch left, else the cached state at the
// database's version, else the state read from the entries table.
func (s *Store) loadState(ctx context.Context, q queryer, batch map[string]*repoState, slug string) (*repoState, error) {
	if st := batch[slug]; st != nil {
		return st, nil
	}
	st, err := readRepoRow(ctx, q, slug)
	if errors.Is(err, store.ErrNotFound) {
		return emptyState(slug), nil
	}
	if err != nil {
		return nil, err
	}
	if cached := s.cache.get(slug, st.version); cached != nil {
		return cached, nil
	}
	if err := readChecksums(ctx, q, st); err != nil {
		return nil, err
	}
	s.cache.put(st)
	return st, nil
}

func emptyState(slug string) *repoState {
	return &repoState{slug: slug, checksum: api.EmptyRepoChecksum}
}

// readRepoRow reads the repos row of slug, or returns store.ErrNotFound.
func readRepoRow(ctx context.Context, q queryer, slug string) (*repoState, error) {
	st := &repoState{slug: slug}
	var modified int64
	err := q.QueryRowContext(ctx, selectRepo, slug).Scan(&st.id, &st.version, &modified, &st.checksum, &st.compactedThrough)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read repo %s: %w", slug, err)
	}
	st.lastModified = time.Unix(0, modified).UTC()
	return st, nil
}

// readChecksums fills st's lines from the entries table.
func readChecksums(ctx context.Context, q queryer, st *repoState) error {
	rows, err := q.QueryContext(ctx, selectSums, st.id)
	if err != nil {
		return fmt.Errorf("read entries of %s: %w", st.slug, err)
	}
	defer rows.Close()
	var lines []entryLine
	for rows.Next() {
		var l entryLine
		var sum sql.NullString
		var deletedAt sql.NullInt64
		if err := rows.Scan(&l.key, &sum, &deletedAt); err != nil {
			return fmt.Errorf("read entries of %s: %w", st.slug, err)
		}
		l.sum, l.deletedAt = sum.String, deletedAt.Int64
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read entries of %s: %w", st.slug, err)
	}
	sortLines(lines)
	st.setLines(lines)
	return nil
}
