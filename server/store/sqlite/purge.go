package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// purgeReq is one Purge waiting for its turn on the writer's connection.
type purgeReq struct {
	ctx context.Context
	p   store.Purge
	res chan purgeRes // buffered: the commit never blocks on it
}

type purgeRes struct {
	r   store.PurgeResult
	err error
}

// Purge implements store.Store. It is committed in a transaction of its
// own, between group commits. The writer's connection runs with secure_delete
// on, so SQLite overwrites with zeros every byte it frees, the purged
// content included. Once committed, the write-ahead log is checkpointed
// into the database file and truncated, so no earlier page image holding
// the content is left in it; when readers keep it from being truncated,
// the result's Residue says so.
func (s *Store) Purge(ctx context.Context, p store.Purge) (store.PurgeResult, error) {
	p, err := store.CheckPurge(p)
	if err != nil {
		return store.PurgeResult{}, err
	}
	req := &purgeReq{ctx: ctx, p: p, res: make(chan purgeRes, 1)}
	w := newWriteReq(ctx)
	w.purge = req
	if err := s.await(w); err != nil {
		return store.PurgeResult{}, err
	}
	res := <-req.res
	return res.r, s.wrote(res.err)
}

// commitPurge runs one purge as the leader of its commit.
func (s *Store) commitPurge(req *purgeReq) purgeRes {
	if err := req.ctx.Err(); err != nil {
		return purgeRes{err: err}
	}
	ctx := context.Background() // once begun, the purge's outcome is reported as it is
	r, next, err := s.purgeTx(ctx, req.p)
	if err != nil {
		return purgeRes{err: err}
	}
	if next != nil {
		s.cache.put(next)
	}
	if len(r.Record.Versions) > 0 {
		r.Residue = s.truncateLog(ctx)
	}
	return purgeRes{r: r}
}

// purgeTx drops the content of the revisions p names, deletes the live
// entry when p covers it, and records the purge, in one transaction. It
// returns the repo's new state when the entry was deleted.
func (s *Store) purgeTx(ctx context.Context, p store.Purge) (store.PurgeResult, *repoState, error) {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return store.PurgeResult{}, nil, fmt.Errorf("begin purge: %w", err)
	}
	defer tx.Rollback()
	wtx := newStmtTx(tx, s.stmts)
	cur, err := s.loadState(ctx, wtx, map[string]*repoState{}, p.Repo)
	if err != nil {
		return store.PurgeResult{}, nil, err
	}
	if cur.id == 0 {
		return store.PurgeResult{}, nil, store.ErrNotFound
	}
	revs, err := keyRevisions(ctx, tx, cur.id, p.Key)
	if err != nil {
		return store.PurgeResult{}, nil, err
	}
	_, live := cur.EntryChecksum(p.Key)
	targets, deleteLive, err := store.PurgeTargets(revs, p, live)
	if err != nil {
		return store.PurgeResult{}, nil, fmt.Errorf("purge %s of %s: %w", p.Key, p.Repo, err)
	}
	res := store.PurgeResult{Record: store.PurgeRecord{Time: p.Time, Actor: p.Actor, Repo: p.Repo, Key: p.Key,
		Reason: p.Reason, Versions: targets}}
	var next *repoState
	if deleteLive {
		if next, res.Deletion, err = s.deleteLive(ctx, wtx, cur, p); err != nil {
			return store.PurgeResult{}, nil, err
		}
		res.Record.DeletedVersion = next.version
	}
	if err := dropContent(ctx, tx, cur.id, p.Key, targets); err != nil {
		return store.PurgeResult{}, nil, err
	}
	if len(targets) > 0 || deleteLive {
		if err := recordPurge(ctx, tx, res.Record); err != nil {
			return store.PurgeResult{}, nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return store.PurgeResult{}, nil, fmt.Errorf("commit purge: %w", err)
	}
	return res, next, nil
}

// keyRevisions lists the revisions of key, oldest first.
func keyRevisions(ctx context.Context, tx *sql.Tx, repoID int64, key string) ([]store.KeyRevision, error) {
	rows, err := tx.QueryContext(ctx, `SELECT version, content IS NOT NULL FROM revisions
		WHERE repo_id = ? AND key = ? ORDER BY version`, repoID, key)
	if err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	defer rows.Close()
	var revs []store.KeyRevision
	for rows.Next() {
		var r store.KeyRevision
		if err := rows.Scan(&r.Version, &r.HasContent); err != nil {
			return nil, fmt.Errorf("read revisions: %w", err)
		}
		revs = append(revs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	return revs, nil
}

// deleteLive deletes p's key as Apply does, in the writer's transaction,
// recorded as the purge's deletion.
func (s *Store) deleteLive(ctx context.Context, tx *stmtTx, cur *repoState, p store.Purge) (*repoState, store.Result, error) {
	w := store.Write{Repo: p.Repo, Deletes: []string{p.Key}, Subject: store.PurgeSubjectPrefix + p.Actor, Time: p.Time}
	plan, err := store.PlanWrite(cur, w)
	if err != nil {
		return nil, store.Result{}, fmt.Errorf("delete %s of %s: %w", p.Key, p.Repo, err)
	}
	next, err := s.writePlan(ctx, tx, cur, plan, w)
	if err != nil {
		return nil, store.Result{}, fmt.Errorf("delete %s of %s: %w", p.Key, p.Repo, err)
	}
	return next, next.result(plan.Changed), nil
}

// dropContent clears the content of the revisions of key at versions.
func dropContent(ctx context.Context, tx *sql.Tx, repoID int64, key string, versions []int64) error {
	for _, v := range versions {
		_, err := tx.ExecContext(ctx, `UPDATE revisions SET content = NULL WHERE repo_id = ? AND key = ? AND version = ?`, repoID, key, v)
		if err != nil {
			return fmt.Errorf("purge revision %d: %w", v, err)
		}
	}
	return nil
}

// recordPurge writes rec to the audit log.
func recordPurge(ctx context.Context, tx *sql.Tx, rec store.PurgeRecord) error {
	versions, err := json.Marshal(rec.Versions)
	if err != nil {
		return fmt.Errorf("record purge: %w", err)
	}
	var deleted sql.NullInt64
	if rec.DeletedVersion > 0 {
		deleted = sql.NullInt64{Int64: rec.DeletedVersion, Valid: true}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO purges (time, actor, repo, key, versions, deleted_version, reason)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, rec.Time.UnixNano(), rec.Actor, rec.Repo, rec.Key, string(versions), deleted, rec.Reason)
	if err != nil {
		return fmt.Errorf("record purge: %w", err)
	}
	return nil
}

// truncateLog checkpoints the write-ahead log into the database file and
// truncates it to nothing, so no page image written before a purge stays
// in it. It returns what is left when readers kept it from finishing.
func (s *Store) truncateLog(ctx context.Context) string {
	var busy, frames, copied int
	err := s.wdb.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &copied)
	switch {
	case err != nil:
		return fmt.Sprintf("the write-ahead log %s-wal could not be truncated (%v): it may hold the purged content until SQLite next checkpoints and reuses it", s.path, err)
	case busy != 0:
		return fmt.Sprintf("readers kept the write-ahead log %s-wal from being truncated: it may hold the purged content until SQLite next checkpoints and reuses it, or the last process using the database closes it", s.path)
	}
	return ""
}

// Purges implements store.Store.
func (s *Store) Purges(ctx context.Context, repo string) ([]store.PurgeRecord, error) {
	rows, err := s.pool().QueryContext(ctx, `SELECT time, actor, repo, key, versions, deleted_version, reason FROM purges
		WHERE ?1 = '' OR repo = ?1 ORDER BY id`, repo)
	if err != nil {
		return nil, fmt.Errorf("list purges: %w", err)
	}
	defer rows.Close()
	recs := []store.PurgeRecord{}
	for rows.Next() {
		rec, err := scanPurge(rows)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list purges: %w", err)
	}
	return recs, nil
}

func scanPurge(rows *sql.Rows) (store.PurgeRecord, error) {
	var rec store.PurgeRecord
	var ns int64
	var versions string
	var deleted sql.NullInt64
	if err := rows.Scan(&ns, &rec.Actor, &rec.Repo, &rec.Key, &versions, &deleted, &rec.Reason); err != nil {
		return rec, fmt.Errorf("list purges: %w", err)
	}
	if err := json.Unmarshal([]byte(versions), &rec.Versions); err != nil {
		return rec, fmt.Errorf("list purges: versions of a record: %w", err)
	}
	rec.Time = time.Unix(0, ns).UTC()
	rec.DeletedVersion = deleted.Int64
	return rec, nil
}
