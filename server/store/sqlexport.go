package store

import (
	"context"
	"fmt"
)

// The statements of an export, the same in every SQL dialect the backends
// speak.
const (
	listRepos       = "SELECT slug FROM repos WHERE version > 0 AND " + TeamSlugs + " ORDER BY slug"
	exportEntries   = "SELECT key, checksum, value, deleted_at FROM entries WHERE repo_id = $1 ORDER BY key"
	exportRevisions = `SELECT key, version, checksum, subject, client, time, content FROM revisions
		WHERE repo_id = $1 ORDER BY key, version`
)

// SQLRepos implements Exporter.Repos on a backend's SQL.
type SQLRepos struct {
	DB SQL
}

// Repos implements Exporter.
func (s SQLRepos) Repos(ctx context.Context) ([]string, error) {
	repos, err := queryAll(ctx, s.DB, func(r Scanner) (slug string, err error) {
		err = r.Scan(&slug)
		return slug, err
	}, listRepos)
	if err != nil {
		return nil, fmt.Errorf("list repos: %w", err)
	}
	return repos, nil
}

// ExportKeys reads into d the entries and the revisions of the repo whose
// row is id, through q, which reads them in the transaction that read the
// repo's row.
func ExportKeys(ctx context.Context, q Querier, id int64, d *RepoDump) error {
	var err error
	if d.Entries, err = queryAll(ctx, q, scanEntryDump, exportEntries, id); err != nil {
		return fmt.Errorf("export %s: %w", d.Repo, err)
	}
	if d.Revisions, err = ExportRevisions(ctx, q, id); err != nil {
		return fmt.Errorf("export %s: %w", d.Repo, err)
	}
	return nil
}

// ExportRevisions reads, through q, the revisions of every key of the repo
// whose row is id, by key then version.
func ExportRevisions(ctx context.Context, q Querier, id int64) ([]RevisionDump, error) {
	return queryAll(ctx, q, scanRevisionDump, exportRevisions, id)
}

func scanEntryDump(r Scanner) (EntryDump, error) {
	var e EntryDump
	var sum *string
	var value []byte
	var deletedAt *int64
	if err := r.Scan(&e.Key, &sum, &value, &deletedAt); err != nil {
		return e, err
	}
	if sum != nil {
		e.Checksum = *sum
	}
	if deletedAt != nil {
		e.DeletedAt = *deletedAt
	}
	e.Value = string(value)
	return e, nil
}

func scanRevisionDump(r Scanner) (RevisionDump, error) {
	var d RevisionDump
	var sum *string
	var ns int64
	var content []byte
	if err := r.Scan(&d.Key, &d.Version, &sum, &d.Subject, &d.Client, &ns, &content); err != nil {
		return d, err
	}
	fillRevision(&d.Revision, sum, ns, content)
	return d, nil
}

// fillRevision sets rev's fields read from their columns: the entry
// checksum (NULL for a deletion), the time in Unix ns and the content
// (NULL once pruned or purged, or left out).
func fillRevision(rev *Revision, sum *string, ns int64, content []byte) {
	rev.Deleted = sum == nil
	if sum != nil {
		rev.Checksum = *sum
	}
	rev.Time = fromUnixNano(ns)
	if content != nil {
		c := string(content)
		rev.Content = &c
	}
}

// TeamSlugs is the SQL condition that selects the team repos of the repos
// table, leaving out every personal lane: a lane's name starts with '~',
// which no slug can.
const TeamSlugs = "slug NOT LIKE '~%'"
