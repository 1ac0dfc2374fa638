package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// History implements store.Store: it reads in one read transaction and
// yields each row as it comes. A repo never written returns
// store.ErrNotFound; a key never written yields no revisions. A Limit of 0
// or less lists them all.
func (s *Store) History(ctx context.Context, q store.HistoryQuery, yield func(store.Revision) error) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	query, args, err := historyQuery(ctx, tx, q)
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("read history: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		rev, err := scanRevision(rows)
		if err != nil {
			return err
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

// historyQuery builds the statement that reads q's revisions: repo, key,
// version, checksum, subject, client, time, content and the content's size, which
// octet_length reads without the value.
func historyQuery(ctx context.Context, tx *sql.Tx, q store.HistoryQuery) (string, []any, error) {
	content := "v.content"
	if q.NoContent {
		content = "NULL"
	}
	var where []string
	var args []any
	order := "r.slug, v.version DESC, v.key"
	if q.Repo != "" {
		st, err := readRepoRow(ctx, tx, q.Repo)
		if err != nil {
			return "", nil, err
		}
		cond, cargs := repoCondition(q, st)
		where, args = append(where, cond), append(args, cargs...)
		order = "v.version DESC, v.key"
	} else {
		where = append(where, "r."+teamSlugs)
	}
	if !q.Since.IsZero() {
		where, args = append(where, "v.time >= ?"), append(args, q.Since.UnixNano())
	}
	filter := ""
	if len(where) > 0 {
		filter = " WHERE " + strings.Join(where, " AND ")
	}
	return `SELECT r.slug, v.key, v.version, v.checksum, v.subject, v.client, v.time, ` + content + `, octet_length(v.content)
		FROM revisions v JOIN repos r ON r.id = v.repo_id` + filter + ` ORDER BY ` + order + ` LIMIT ?`,
		append(args, limitArg(q.Limit)), nil
}

// repoCondition selects the revisions of q within the repo st, below the
// cursor: of one key by version, of every key by version then key.
func repoCondition(q store.HistoryQuery, st *repoState) (string, []any) {
	before := q.Before
	if before <= 0 {
		before = st.version + 1
	}
	if q.Key != "" {
		return "v.repo_id = ? AND v.key = ? AND v.version < ?", []any{st.id, q.Key, before}
	}
	afterKey, lastVersion := q.BeforeKey, before
	if q.Before <= 0 || q.BeforeKey == "" {
		afterKey, lastVersion = "", before-1
	}
	return "v.repo_id = ? AND (v.version < ? OR (v.version = ? AND v.key > ?))", []any{st.id, before, lastVersion, afterKey}
}

// limitArg is a LIMIT argument: n, or no limit for 0 or less.
func limitArg(n int) int64 {
	if n <= 0 {
		return -1 // no limit in SQLite
	}
	return int64(n)
}

// scanRevision reads one row of a history query.
func scanRevision(rows *sql.Rows) (store.Revision, error) {
	var rev store.Revision
	var sum sql.NullString
	var ns int64
	var content []byte
	var size sql.NullInt64
	if err := rows.Scan(&rev.Repo, &rev.Key, &rev.Version, &sum, &rev.Subject, &rev.Client, &ns, &content, &size); err != nil {
		return rev, fmt.Errorf("read history: %w", err)
	}
	fillRevision(&rev, sum, ns, content)
	if size.Valid {
		rev.Size = &size.Int64
	}
	return rev, nil
}

// fillRevision sets rev's fields read from their columns.
func fillRevision(rev *store.Revision, sum sql.NullString, ns int64, content []byte) {
	rev.Checksum = sum.String
	rev.Deleted = !sum.Valid
	rev.Time = time.Unix(0, ns).UTC()
	if content != nil {
		c := string(content)
		rev.Content = &c
	}
}
