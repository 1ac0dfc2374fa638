package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// DropLane implements store.Personal. The writer's connection overwrites
// the freed bytes with zeros (secure_delete), as a purge does.
func (s *Store) DropLane(ctx context.Context, subject, lane string) error {
	repo := store.PersonalRepo(subject, lane)
	n, err := s.dropLanes(ctx, subject, repo, func(context.Context, *sql.Tx, store.PersonalPurge) error { return nil })
	if err != nil {
		return err
	}
	if n.Lanes == 0 {
		return store.ErrNotFound
	}
	return nil
}

// PurgePersonal implements store.Personal.
func (s *Store) PurgePersonal(ctx context.Context, subject, actor, reason string, at time.Time) (store.PersonalPurge, error) {
	res, err := s.dropLanes(ctx, subject, "", func(ctx context.Context, tx *sql.Tx, res store.PersonalPurge) error {
		if !res.Key && res.Lanes == 0 {
			return store.ErrNotFound
		}
		return recordPurge(ctx, tx, store.PurgeRecord{Time: at, Actor: actor, Repo: store.PersonalAuditRepo,
			Key: subject, Reason: reason, Versions: []int64{}})
	})
	if err != nil {
		return store.PersonalPurge{}, err
	}
	s.truncateLog(ctx)
	return res, nil
}

// dropLanes drops, in one transaction, the lane repo of subject, or with
// repo empty every lane of subject and its key; then finish runs in the
// same transaction with what was dropped, and its error rolls it all back.
func (s *Store) dropLanes(ctx context.Context, subject, repo string, finish func(context.Context, *sql.Tx, store.PersonalPurge) error) (_ store.PersonalPurge, err error) {
	defer func() { err = s.wrote(err) }()
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return store.PersonalPurge{}, fmt.Errorf("begin lane drop: %w", err)
	}
	defer tx.Rollback()
	lanes, res, err := selectLanes(ctx, tx, subject, repo)
	if err != nil {
		return store.PersonalPurge{}, err
	}
	for _, l := range lanes {
		if err := dropRepo(ctx, tx, l.id); err != nil {
			return store.PersonalPurge{}, err
		}
	}
	if repo == "" {
		r, err := tx.ExecContext(ctx, `DELETE FROM personal_keys WHERE subject = ?`, subject)
		if err != nil {
			return store.PersonalPurge{}, fmt.Errorf("drop personal key: %w", err)
		}
		n, _ := r.RowsAffected()
		res.Key = n > 0
	}
	if err := finish(ctx, tx, res); err != nil {
		return store.PersonalPurge{}, err
	}
	if err := tx.Commit(); err != nil {
		return store.PersonalPurge{}, fmt.Errorf("commit lane drop: %w", err)
	}
	for _, l := range lanes {
		s.cache.drop(l.slug)
	}
	return res, nil
}

// laneRow is a lane repo to drop.
type laneRow struct {
	id   int64
	slug string
}

// selectLanes reads the lanes of subject, or only repo when it is set, and
// sums up their usage.
func selectLanes(ctx context.Context, tx *sql.Tx, subject, repo string) ([]laneRow, store.PersonalPurge, error) {
	rows, err := tx.QueryContext(ctx, `SELECT r.id, r.slug, l.entries, l.bytes FROM personal_lanes l JOIN repos r ON r.id = l.repo_id
		WHERE l.subject = ? AND (? = '' OR r.slug = ?)`, subject, repo, repo)
	if err != nil {
		return nil, store.PersonalPurge{}, fmt.Errorf("read lanes: %w", err)
	}
	defer rows.Close()
	var lanes []laneRow
	var res store.PersonalPurge
	for rows.Next() {
		var l laneRow
		var u store.Usage
		if err := rows.Scan(&l.id, &l.slug, &u.Entries, &u.Bytes); err != nil {
			return nil, store.PersonalPurge{}, fmt.Errorf("read lanes: %w", err)
		}
		lanes = append(lanes, l)
		res.Lanes++
		res.Usage.Entries += u.Entries
		res.Usage.Bytes += u.Bytes
	}
	if err := rows.Err(); err != nil {
		return nil, store.PersonalPurge{}, fmt.Errorf("read lanes: %w", err)
	}
	return lanes, res, nil
}

// dropRepo deletes a repo and everything it holds.
func dropRepo(ctx context.Context, tx *sql.Tx, id int64) error {
	for _, q := range []string{
		`DELETE FROM entries WHERE repo_id = ?`,
		`DELETE FROM revisions WHERE repo_id = ?`,
		`DELETE FROM personal_lanes WHERE repo_id = ?`,
		`DELETE FROM repos WHERE id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return fmt.Errorf("drop lane: %w", err)
		}
	}
	return nil
}

// drop forgets the cached state of slug.
func (c *stateCache) drop(slug string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.repos[slug]; old != nil {
		c.entries -= old.size()
		delete(c.repos, slug)
	}
}

// PersonalSubjects implements store.Personal.
func (s *Store) PersonalSubjects(ctx context.Context) ([]store.PersonalSubject, error) {
	rows, err := s.pool().QueryContext(ctx, `SELECT s.subject, coalesce(k.key_id, ''), count(l.repo_id),
			coalesce(sum(l.entries), 0), coalesce(sum(l.bytes), 0), coalesce(max(r.last_modified), max(k.updated_at), 0)
		FROM (SELECT subject FROM personal_keys UNION SELECT subject FROM personal_lanes) s
		LEFT JOIN personal_keys k ON k.subject = s.subject
		LEFT JOIN personal_lanes l ON l.subject = s.subject
		LEFT JOIN repos r ON r.id = l.repo_id
		GROUP BY s.subject ORDER BY s.subject`)
	if err != nil {
		return nil, fmt.Errorf("list personal subjects: %w", err)
	}
	defer rows.Close()
	subjects := []store.PersonalSubject{}
	for rows.Next() {
		var p store.PersonalSubject
		var modified int64
		if err := rows.Scan(&p.Subject, &p.KeyID, &p.Lanes, &p.Usage.Entries, &p.Usage.Bytes, &modified); err != nil {
			return nil, fmt.Errorf("list personal subjects: %w", err)
		}
		if modified > 0 {
			p.LastModified = time.Unix(0, modified).UTC()
		}
		subjects = append(subjects, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list personal subjects: %w", err)
	}
	return subjects, nil
}

var _ store.Personal = (*Store)(nil)
