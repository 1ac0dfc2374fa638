package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/server/store"
)

// copyPurges copies the purge records of src that s lacks, each with the
// purge itself: the content of the revisions it names is dropped in s in the
// same transaction. The records of a repo that diverged are left out, since
// its versions in s may be other revisions.
func (s *Store) copyPurges(ctx context.Context, src store.Exporter, diverged map[string]bool, report *CopyReport) error {
	want, err := src.Purges(ctx, "")
	if err != nil {
		return fmt.Errorf("read purges from the source: %w", err)
	}
	have, err := s.Purges(ctx, "")
	if err != nil {
		return err
	}
	var errs []error
	for _, rec := range want {
		if slices.ContainsFunc(have, func(h store.PurgeRecord) bool { return samePurge(h, rec) }) {
			continue
		}
		if diverged[rec.Repo] {
			errs = append(errs, divergedPurge(rec))
			continue
		}
		if err := s.importPurge(ctx, rec); err != nil {
			errs = append(errs, err)
			continue
		}
		report.PurgesCopied++
	}
	return errors.Join(errs...)
}

// divergedPurge is the error of rec, a purge of a repo that diverged: the
// destination may still hold the content it dropped, a leaked secret
// perhaps, so it names the purge to make there.
func divergedPurge(rec store.PurgeRecord) error {
	versions := make([]string, len(rec.Versions))
	for i, v := range rec.Versions {
		versions[i] = strconv.FormatInt(v, 10)
	}
	args := []string{"teammemd", "admin", "purge", "--store", "URL", "--repo", rec.Repo, "--key", rec.Key, "--version", strings.Join(versions, ",")}
	if rec.DeletedVersion != 0 {
		args = append(args, "--include-live")
	}
	return fmt.Errorf("purge of %s in %s made %s not copied: the repo diverged, so the destination may still hold the content it dropped; purge it there: %s",
		rec.Key, rec.Repo, rec.Time.UTC().Format(time.RFC3339), shell.Join(args...))
}

// samePurge reports whether a and b are the same record.
func samePurge(a, b store.PurgeRecord) bool {
	return a.Time.Equal(b.Time) && a.Actor == b.Actor && a.Repo == b.Repo && a.Key == b.Key && a.Reason == b.Reason &&
		slices.Equal(a.Versions, b.Versions) && a.DeletedVersion == b.DeletedVersion
}

// importPurge drops the content of rec's revisions and records rec, in one
// transaction holding the repo's row lock.
func (s *Store) importPurge(ctx context.Context, rec store.PurgeRecord) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return fmt.Errorf("copy purge of %s in %s: begin: %w", rec.Key, rec.Repo, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var id int64
	err = tx.QueryRow(ctx, "SELECT id FROM repos WHERE slug = $1 FOR UPDATE", rec.Repo).Scan(&id)
	switch {
	case errors.Is(err, pgx.ErrNoRows): // a repo never copied holds nothing to drop
	case err != nil:
		return fmt.Errorf("copy purge of %s in %s: %w", rec.Key, rec.Repo, err)
	default:
		_, err = tx.Exec(ctx, `UPDATE revisions SET content = NULL WHERE repo_id = $1 AND key = $2 AND version = ANY($3)`,
			id, rec.Key, rec.Versions)
		if err != nil {
			return fmt.Errorf("copy purge of %s in %s: %w", rec.Key, rec.Repo, err)
		}
	}
	if err := recordPurge(ctx, tx, rec); err != nil {
		return fmt.Errorf("copy purge of %s in %s: %w", rec.Key, rec.Repo, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("copy purge of %s in %s: commit: %w", rec.Key, rec.Repo, err)
	}
	return nil
}
