package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/store"
)

// History implements store.Store: the revisions of one key, of every key
// of a repo, or of every repo, newest first (see store.HistoryQuery),
// yielded as the rows come. A repo never written returns
// store.ErrNotFound; a key never written yields no revisions. A Limit of 0
// or less lists them all.
func (s *Store) History(ctx context.Context, q store.HistoryQuery, yield func(store.Revision) error) error {
	query, args, err := s.historyQuery(ctx, q)
	if err != nil {
		return err
	}
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("read history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		rev, err := scanRevision(rows)
		if err != nil {
			return fmt.Errorf("read history: %w", err)
		}
		if err := yield(rev); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read history: %w", err)
	}
	return nil
}

// queryArgs collects the arguments of a statement and names each $n.
type queryArgs []any

func (a *queryArgs) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// historyQuery builds the statement that reads q's revisions: repo, key,
// version, checksum, subject, client, time, content and the content's size, which
// octet_length reads from a stored value's header without the value.
func (s *Store) historyQuery(ctx context.Context, q store.HistoryQuery) (string, []any, error) {
	content := "v.content"
	if q.NoContent {
		content = "NULL::bytea"
	}
	var args queryArgs
	where := []string{"r.version > 0"}
	order := "r.slug, v.version DESC, v.key"
	if q.Repo != "" {
		cond, err := s.repoCondition(ctx, q, &args)
		if err != nil {
			return "", nil, err
		}
		where, order = append(where, cond), "v.version DESC, v.key"
	} else {
		where = append(where, "r."+teamSlugs)
	}
	if !q.Since.IsZero() {
		where = append(where, "v.time >= "+args.add(q.Since.UnixNano()))
	}
	limit := ""
	if q.Limit > 0 {
		limit = " LIMIT " + args.add(int64(q.Limit))
	}
	return `SELECT r.slug, v.key, v.version, v.checksum, v.subject, v.client, v.time, ` + content + `, octet_length(v.content)
		FROM revisions v JOIN repos r ON r.id = v.repo_id WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY ` + order + limit, args, nil
}

// repoCondition selects the revisions of q within its repo, below the
// cursor: of one key by version, of every key by version then key.
func (s *Store) repoCondition(ctx context.Context, q store.HistoryQuery, args *queryArgs) (string, error) {
	var id, version int64
	err := s.pool.QueryRow(ctx, `SELECT id, version FROM repos WHERE slug = $1 AND version > 0`, q.Repo).Scan(&id, &version)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", store.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read repo %s: %w", q.Repo, err)
	}
	before := q.Before
	if before <= 0 {
		before = version + 1
	}
	if q.Key != "" {
		return "v.repo_id = " + args.add(id) + " AND v.key = " + args.add(q.Key) + " AND v.version < " + args.add(before), nil
	}
	afterKey, lastVersion := q.BeforeKey, before
	if q.Before <= 0 || q.BeforeKey == "" {
		afterKey, lastVersion = "", before-1
	}
	return "v.repo_id = " + args.add(id) + " AND (v.version < " + args.add(before) +
		" OR (v.version = " + args.add(lastVersion) + " AND v.key > " + args.add(afterKey) + "))", nil
}

// scanRevision reads one row of a history query.
func scanRevision(rows pgx.Rows) (store.Revision, error) {
	var rev store.Revision
	var sum *string
	var ns int64
	var content []byte
	if err := rows.Scan(&rev.Repo, &rev.Key, &rev.Version, &sum, &rev.Subject, &rev.Client, &ns, &content, &rev.Size); err != nil {
		return rev, err
	}
	rev.Deleted = sum == nil
	if sum != nil {
		rev.Checksum = *sum
	}
	rev.Time = unixNano(ns)
	if content != nil {
		c := string(content)
		rev.Content = &c
	}
	return rev, nil
}
