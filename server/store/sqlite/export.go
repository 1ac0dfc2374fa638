package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/teammemd/teammemd/server/store"
)

// Repos implements store.Exporter.
func (s *Store) Repos(ctx context.Context) ([]string, error) {
	rows, err := s.rdb.QueryContext(ctx, "SELECT slug FROM repos WHERE version > 0 AND "+teamSlugs+" ORDER BY slug")
	if err != nil {
		return nil, fmt.Errorf("list repos: %w", err)
	}
	defer rows.Close()
	repos := []string{}
	for rows.Next() {
		var slug string
		if err := rows.Scan(&slug); err != nil {
			return nil, fmt.Errorf("list repos: %w", err)
		}
		repos = append(repos, slug)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list repos: %w", err)
	}
	return repos, nil
}

// ExportRepo implements store.Exporter, reading the repo in one read
// transaction.
func (s *Store) ExportRepo(ctx context.Context, repo string) (store.RepoDump, error) {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return store.RepoDump{}, fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	st, err := readRepoRow(ctx, tx, repo)
	if err != nil {
		return store.RepoDump{}, err
	}
	d := store.RepoDump{Repo: repo, Version: st.version, LastModified: st.lastModified, Checksum: st.checksum,
		CompactedThrough: st.compactedThrough}
	if d.Entries, err = exportEntries(ctx, tx, st.id); err != nil {
		return store.RepoDump{}, fmt.Errorf("export %s: %w", repo, err)
	}
	if d.Revisions, err = exportRevisions(ctx, tx, st.id); err != nil {
		return store.RepoDump{}, fmt.Errorf("export %s: %w", repo, err)
	}
	return d, nil
}

func exportEntries(ctx context.Context, tx *sql.Tx, id int64) ([]store.EntryDump, error) {
	rows, err := tx.QueryContext(ctx, "SELECT key, checksum, value, deleted_at FROM entries WHERE repo_id = ? ORDER BY key", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.EntryDump
	for rows.Next() {
		var e store.EntryDump
		var sum sql.NullString
		var value []byte
		var deletedAt sql.NullInt64
		if err := rows.Scan(&e.Key, &sum, &value, &deletedAt); err != nil {
			return nil, err
		}
		e.Checksum, e.Value, e.DeletedAt = sum.String, string(value), deletedAt.Int64
		out = append(out, e)
	}
	return out, rows.Err()
}

func exportRevisions(ctx context.Context, tx *sql.Tx, id int64) ([]store.RevisionDump, error) {
	rows, err := tx.QueryContext(ctx, `SELECT key, version, checksum, subject, client, time, content FROM revisions
		WHERE repo_id = ? ORDER BY key, version`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.RevisionDump
	for rows.Next() {
		var key string
		var sum sql.NullString
		var ns int64
		var content []byte
		var rev store.Revision
		if err := rows.Scan(&key, &rev.Version, &sum, &rev.Subject, &rev.Client, &ns, &content); err != nil {
			return nil, err
		}
		fillRevision(&rev, sum, ns, content)
		out = append(out, store.RevisionDump{Key: key, Revision: rev})
	}
	return out, rows.Err()
}
