package sqlite

import (
	"context"
	"strings"

	"github.com/teammemd/teammemd/server/store"
)

// History implements store.Store: it yields each row as it comes. A repo
// never written returns store.ErrNotFound; a key never written yields no
// revisions. A Limit of 0 or less lists them all.
//
// The repo's row and its revisions are two reads, each of the database as
// it is then, with no transaction around them: the revisions are below
// the version the first read found, and those only ever lose their
// content to a purge or a pruning, or go with a dropped personal lane,
// which may as well come just before the first read.
func (s *Store) History(ctx context.Context, q store.HistoryQuery, yield func(store.Revision) error) error {
	pool := s.pool()
	query, args, err := historyQuery(ctx, pool, q)
	if err != nil {
		return err
	}
	return store.YieldRevisions(ctx, sqlQuerier(pool), yield, query, args...)
}

// historyQuery builds the statement that reads q's revisions: repo, key,
// version, checksum, subject, client, time, content and the content's size, which
// octet_length reads without the value.
func historyQuery(ctx context.Context, tx queryer, q store.HistoryQuery) (string, []any, error) {
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
		where = append(where, "r."+store.TeamSlugs)
	}
	if !q.Since.IsZero() {
		where, args = append(where, "v.time >= ?"), append(args, q.Since.UnixNano())
	}
	filter := ""
	if len(where) > 0 {
		filter = " WHERE " + strings.Join(where, " AND ")
	}
	return `SELECT r.slug, v.key, v.version, v.checksum, v.subject, v.client, v.time, ` + content + `, octet_length(v.content)
		FROM revisions v JOIN repos r ON r.id = v.repo_id` + filter + ` ORDER BY ` + order + ` LIMIT CAST(? AS INTEGER)`,
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
