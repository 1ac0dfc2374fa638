package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/store"
)

// VacuumPurged is the statement docs/10-security.md (Purging a leaked
// secret) gives to run after a purge: it rewrites the tables purged content
// was in, their TOAST tables and indexes, without the dead row versions
// that still hold it.
const VacuumPurged = "VACUUM (FULL) entries, revisions"

// purgeResidue is the Residue of every purge that dropped content:
// PostgreSQL keeps the old row versions, content included, in the files of
// the entries and revisions tables until they are rewritten.
const purgeResidue = "PostgreSQL keeps the purged content in dead row versions of the entries and revisions tables " +
	"(and their TOAST tables) until they are rewritten: run " + VacuumPurged + " (it locks the tables while it runs), " +
	"then CHECKPOINT as a superuser; the write-ahead log, WAL archives, replicas and backups keep their copies " +
	"(docs/10-security.md: Purging a leaked secret)"

// Purge implements store.Store. It holds the repo's row lock, so it runs
// between the writes to the repo of every replica, and clears the content
// of the revisions in one transaction with its audit record. Deleting the
// live entry notifies every replica as a write does.
func (s *Store) Purge(ctx context.Context, p store.Purge) (_ store.PurgeResult, err error) {
	defer func() { err = s.wrote(err) }()
	p, err = store.CheckPurge(p)
	if err != nil {
		return store.PurgeResult{}, err
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return store.PurgeResult{}, fmt.Errorf("begin purge: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	res, err := s.purgeTx(ctx, tx, p)
	if err != nil {
		return store.PurgeResult{}, err
	}
	if err := tx.Commit(ctx); err != nil {
		return store.PurgeResult{}, fmt.Errorf("commit purge: %w", err)
	}
	if len(res.Record.Versions) > 0 {
		res.Residue = purgeResidue
	}
	return res, nil
}

// purgeTx runs p in tx: it deletes the live entry when p covers it, drops
// the content of the revisions p names and records the purge.
func (s *Store) purgeTx(ctx context.Context, tx pgx.Tx, p store.Purge) (store.PurgeResult, error) {
	cur, err := lockExisting(ctx, tx, p.Repo)
	if err != nil {
		return store.PurgeResult{}, err
	}
	revs, err := keyRevisions(ctx, tx, cur.id, p.Key)
	if err != nil {
		return store.PurgeResult{}, err
	}
	_, live := cur.live[p.Key]
	targets, deleteLive, err := store.PurgeTargets(revs, p, live)
	if err != nil {
		return store.PurgeResult{}, fmt.Errorf("purge %s of %s: %w", p.Key, p.Repo, err)
	}
	res := store.PurgeResult{Record: store.PurgeRecord{Time: p.Time, Actor: p.Actor, Repo: p.Repo, Key: p.Key,
		Reason: p.Reason, Versions: targets}}
	if deleteLive {
		if res.Deletion, err = s.deleteLive(ctx, tx, cur, p); err != nil {
			return store.PurgeResult{}, err
		}
		res.Record.DeletedVersion = res.Deletion.Version
	}
	if len(targets) == 0 && !deleteLive {
		return res, nil
	}
	_, err = tx.Exec(ctx, `UPDATE revisions SET content = NULL WHERE repo_id = $1 AND key = $2 AND version = ANY($3)`,
		cur.id, p.Key, targets)
	if err != nil {
		return store.PurgeResult{}, fmt.Errorf("purge revisions of %s: %w", p.Key, err)
	}
	return res, recordPurge(ctx, tx, res.Record)
}

// lockExisting locks the row of a repo that has been written and reads its
// keys; a repo never written returns store.ErrNotFound.
func lockExisting(ctx context.Context, tx pgx.Tx, slug string) (*repoState, error) {
	st := &repoState{slug: slug}
	var modified int64
	err := tx.QueryRow(ctx, `SELECT id, version, last_modified, checksum, compacted_through FROM repos WHERE slug = $1 AND version > 0 FOR UPDATE`, slug).
		Scan(&st.id, &st.version, &modified, &st.checksum, &st.compactedThrough)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("lock repo %s: %w", slug, err)
	}
	st.lastModified = unixNano(modified)
	return st, readKeys(ctx, tx, st)
}

// keyRevisions lists the revisions of key, oldest first.
func keyRevisions(ctx context.Context, tx pgx.Tx, repoID int64, key string) ([]store.KeyRevision, error) {
	rows, err := tx.Query(ctx, `SELECT version, content IS NOT NULL FROM revisions
		WHERE repo_id = $1 AND key = $2 ORDER BY version`, repoID, key)
	if err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	revs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.KeyRevision, error) {
		var r store.KeyRevision
		err := row.Scan(&r.Version, &r.HasContent)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	return revs, nil
}

// deleteLive deletes p's key as Apply does, in tx, recorded as the purge's
// deletion, and notifies the replicas when tx commits.
func (s *Store) deleteLive(ctx context.Context, tx pgx.Tx, cur *repoState, p store.Purge) (store.Result, error) {
	w := store.Write{Repo: p.Repo, Deletes: []string{p.Key}, Subject: store.PurgeSubjectPrefix + p.Actor, Time: p.Time}
	pl, err := store.PlanWrite(cur, w)
	if err != nil {
		return store.Result{}, fmt.Errorf("delete %s of %s: %w", p.Key, p.Repo, err)
	}
	b := &pgx.Batch{}
	next, err := queueWrite(b, cur, pl, w)
	if err != nil {
		return store.Result{}, err
	}
	b.Queue(updateRepo, next.version, next.lastModified.UnixNano(), next.checksum, next.compactedThrough, next.id)
	b.Queue(notifyChange, s.channel, notifyPayload(next.version, next.slug))
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return store.Result{}, fmt.Errorf("delete %s of %s: %w", p.Key, p.Repo, err)
	}
	return next.result(pl.Changed), nil
}

// recordPurge writes rec to the audit log.
func recordPurge(ctx context.Context, tx pgx.Tx, rec store.PurgeRecord) error {
	var deleted *int64
	if rec.DeletedVersion > 0 {
		deleted = &rec.DeletedVersion
	}
	versions := rec.Versions
	if versions == nil {
		versions = []int64{} // a live revision whose content was pruned
	}
	_, err := tx.Exec(ctx, `INSERT INTO purges (time, actor, repo, key, versions, deleted_version, reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, rec.Time.UnixNano(), rec.Actor, rec.Repo, rec.Key, versions, deleted, rec.Reason)
	if err != nil {
		return fmt.Errorf("record purge: %w", err)
	}
	return nil
}

// Purges implements store.Store.
func (s *Store) Purges(ctx context.Context, repo string) ([]store.PurgeRecord, error) {
	rows, err := s.pool.Query(ctx, `SELECT time, actor, repo, key, versions, deleted_version, reason FROM purges
		WHERE $1 = '' OR repo = $1 ORDER BY id`, repo)
	if err != nil {
		return nil, fmt.Errorf("list purges: %w", err)
	}
	recs, err := pgx.CollectRows(rows, scanPurge)
	if err != nil {
		return nil, fmt.Errorf("list purges: %w", err)
	}
	return recs, nil
}

func scanPurge(row pgx.CollectableRow) (store.PurgeRecord, error) {
	var rec store.PurgeRecord
	var ns int64
	var deleted *int64
	if err := row.Scan(&ns, &rec.Actor, &rec.Repo, &rec.Key, &rec.Versions, &deleted, &rec.Reason); err != nil {
		return rec, err
	}
	rec.Time = unixNano(ns)
	if deleted != nil {
		rec.DeletedVersion = *deleted
	}
	if rec.Versions == nil {
		rec.Versions = []int64{}
	}
	return rec, nil
}
