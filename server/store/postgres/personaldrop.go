package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/teammemd/teammemd/server/store"
)

// DropLane implements store.Personal.
func (s *Store) DropLane(ctx context.Context, subject, lane string) error {
	res, err := s.dropLanes(ctx, subject, store.PersonalRepo(subject, lane), func(context.Context, pgx.Tx, store.PersonalPurge) error { return nil })
	if err != nil {
		return err
	}
	if res.Lanes == 0 {
		return store.ErrNotFound
	}
	return nil
}

// PurgePersonal implements store.Personal.
func (s *Store) PurgePersonal(ctx context.Context, subject, actor, reason string, at time.Time) (store.PersonalPurge, error) {
	return s.dropLanes(ctx, subject, "", func(ctx context.Context, tx pgx.Tx, res store.PersonalPurge) error {
		if !res.Key && res.Lanes == 0 {
			return store.ErrNotFound
		}
		return recordPurge(ctx, tx, store.PurgeRecord{Time: at, Actor: actor, Repo: store.PersonalAuditRepo,
			Key: subject, Reason: reason, Versions: []int64{}})
	})
}

// dropLanes drops, in one transaction, the lane repo of subject, or with
// repo empty every lane of subject and its key, and tells every replica's
// change waits on them; finish runs in the same transaction with what was
// dropped, and its error rolls it all back. It locks the lanes' rows, in
// slug order, before the key's, as lane writes do.
func (s *Store) dropLanes(ctx context.Context, subject, repo string, finish func(context.Context, pgx.Tx, store.PersonalPurge) error) (_ store.PersonalPurge, err error) {
	defer func() { err = s.wrote(err) }()
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return store.PersonalPurge{}, fmt.Errorf("begin lane drop: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	ids, slugs, res, err := lockLanes(ctx, tx, subject, repo)
	if err != nil {
		return store.PersonalPurge{}, err
	}
	b := &pgx.Batch{}
	for _, q := range []string{
		`DELETE FROM entries WHERE repo_id = ANY($1)`,
		`DELETE FROM revisions WHERE repo_id = ANY($1)`,
		`DELETE FROM personal_lanes WHERE repo_id = ANY($1)`,
		`DELETE FROM repos WHERE id = ANY($1)`,
	} {
		b.Queue(q, ids)
	}
	if repo == "" {
		b.Queue(`DELETE FROM personal_keys WHERE subject = $1`, subject).Exec(func(tag pgconn.CommandTag) error {
			res.Key = tag.RowsAffected() > 0
			return nil
		})
	}
	for _, slug := range slugs {
		b.Queue(notifyChange, s.channel, notifyPayload(0, slug))
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return store.PersonalPurge{}, fmt.Errorf("drop lanes: %w", err)
	}
	if err := finish(ctx, tx, res); err != nil {
		return store.PersonalPurge{}, err
	}
	if err := tx.Commit(ctx); err != nil {
		return store.PersonalPurge{}, fmt.Errorf("commit lane drop: %w", err)
	}
	return res, nil
}

// lockLanes locks the repo rows of the lanes of subject, or only repo when
// it is set, in slug order, and sums up their usage.
func lockLanes(ctx context.Context, tx pgx.Tx, subject, repo string) ([]int64, []string, store.PersonalPurge, error) {
	rows, err := tx.Query(ctx, `SELECT r.id, r.slug, l.entries, l.bytes FROM repos r JOIN personal_lanes l ON l.repo_id = r.id
		WHERE l.subject = $1 AND ($2 = '' OR r.slug = $2) ORDER BY r.slug FOR UPDATE OF r`, subject, repo)
	if err != nil {
		return nil, nil, store.PersonalPurge{}, fmt.Errorf("read lanes: %w", err)
	}
	var ids []int64
	var slugs []string
	var res store.PersonalPurge
	var id, entries, bytes int64
	var slug string
	_, err = pgx.ForEachRow(rows, []any{&id, &slug, &entries, &bytes}, func() error {
		ids, slugs = append(ids, id), append(slugs, slug)
		res.Lanes++
		res.Usage.Entries += int(entries)
		res.Usage.Bytes += bytes
		return nil
	})
	if err != nil {
		return nil, nil, store.PersonalPurge{}, fmt.Errorf("read lanes: %w", err)
	}
	return ids, slugs, res, nil
}
