package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/teammemd/teammemd/server/store"
)

const upsertLane = `INSERT INTO personal_lanes (repo_id, subject, key_id, entries, bytes) VALUES ($1, $2, $3, $4, $5)
	ON CONFLICT (repo_id) DO UPDATE SET entries = personal_lanes.entries + excluded.entries, bytes = personal_lanes.bytes + excluded.bytes`

// laneBatch is a batch of lane writes to one lane: its subject's key and
// usage, read under the lock of the subject's key row, which every lane
// write of the subject takes, and the sizes of the lane's live values, as
// the writes of the batch before the current one leave them.
type laneBatch struct {
	keyID string
	used  store.Usage
	sizes map[string]int64
}

// beginLane locks the key row of the subject of the batch's lane writes
// and reads what checking them needs; nil for a batch of writes to a team
// repo. A subject without a key gets a laneBatch that refuses every write.
func beginLane(ctx context.Context, tx querier, cur *repoState, batch []*writeReq) (*laneBatch, error) {
	i := slices.IndexFunc(batch, func(r *writeReq) bool { return r.w.Lane != nil })
	if i < 0 {
		return nil, nil
	}
	w := batch[i].w
	lb := &laneBatch{sizes: map[string]int64{}}
	err := tx.QueryRow(ctx, `SELECT key_id FROM personal_keys WHERE subject = $1 FOR UPDATE`, w.Subject).Scan(&lb.keyID)
	if errors.Is(err, pgx.ErrNoRows) {
		return lb, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lock personal key: %w", err)
	}
	err = tx.QueryRow(ctx, `SELECT coalesce(sum(entries), 0)::bigint, coalesce(sum(bytes), 0)::bigint FROM personal_lanes WHERE subject = $1`, w.Subject).
		Scan(&lb.used.Entries, &lb.used.Bytes)
	if err != nil {
		return nil, fmt.Errorf("read personal usage: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT key, octet_length(value) FROM entries WHERE repo_id = $1 AND checksum IS NOT NULL`, cur.id)
	if err != nil {
		return nil, fmt.Errorf("read entry sizes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var n int64
		if err := rows.Scan(&k, &n); err != nil {
			return nil, fmt.Errorf("read entry sizes: %w", err)
		}
		lb.sizes[k] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read entry sizes: %w", err)
	}
	return lb, nil
}

// check checks w, planned as p, against the subject's key and quota and
// returns how it changes the usage.
func (lb *laneBatch) check(p store.WritePlan, w store.Write) (store.Usage, error) {
	if w.Lane == nil {
		return store.Usage{}, fmt.Errorf("write to the lane %s without its key", w.Repo)
	}
	if err := store.CheckLaneWrite(w); err != nil {
		return store.Usage{}, err
	}
	switch {
	case lb.keyID == "":
		return store.Usage{}, store.ErrNoPersonalKey
	case lb.keyID != w.Lane.KeyID:
		return store.Usage{}, store.ErrPersonalKeyChanged
	}
	d, err := store.UsageDelta(p, func(k string) (int64, bool, error) {
		n, live := lb.sizes[k]
		return n, live, nil
	})
	if err != nil {
		return store.Usage{}, err
	}
	return d, store.CheckQuota(w.Lane.Quota, lb.used, d)
}

// queue queues on b the lane's usage change by d after the write p of w
// to the lane next, and records it for the writes after it.
func (lb *laneBatch) queue(b *pgx.Batch, next *repoState, p store.WritePlan, w store.Write, d store.Usage) {
	b.Queue(upsertLane, next.id, w.Subject, w.Lane.KeyID, d.Entries, d.Bytes)
	lb.used.Entries += d.Entries
	lb.used.Bytes += d.Bytes
	for _, k := range p.Deletes {
		delete(lb.sizes, k)
	}
	for k, u := range p.Upserts {
		lb.sizes[k] = int64(len(u.Value))
	}
}

// PersonalKey implements store.Personal.
func (s *Store) PersonalKey(ctx context.Context, subject string) (store.PersonalKey, error) {
	return readPersonalKey(ctx, s.pool, subject, "")
}

func readPersonalKey(ctx context.Context, q querier, subject, lock string) (store.PersonalKey, error) {
	k := store.PersonalKey{Subject: subject}
	var updated int64
	err := q.QueryRow(ctx, `SELECT key_id, envelope, updated_at FROM personal_keys WHERE subject = $1`+lock, subject).
		Scan(&k.KeyID, &k.Envelope, &updated)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.PersonalKey{}, store.ErrNoPersonalKey
	}
	if err != nil {
		return store.PersonalKey{}, fmt.Errorf("read personal key: %w", err)
	}
	k.UpdatedAt = unixNano(updated)
	return k, nil
}

// PutPersonalKey implements store.Personal.
func (s *Store) PutPersonalKey(ctx context.Context, k store.PersonalKey, ifMatch string) (_ store.PersonalKey, err error) {
	defer func() { err = s.wrote(err) }()
	k.UpdatedAt = k.UpdatedAt.UTC().Round(0)
	var tag pgconn.CommandTag
	if ifMatch == "" {
		tag, err = s.pool.Exec(ctx, `INSERT INTO personal_keys (subject, key_id, envelope, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (subject) DO NOTHING`, k.Subject, k.KeyID, k.Envelope, k.UpdatedAt.UnixNano())
	} else {
		tag, err = s.pool.Exec(ctx, `UPDATE personal_keys SET key_id = $2, envelope = $3, updated_at = $4
			WHERE subject = $1 AND key_id = $5`, k.Subject, k.KeyID, k.Envelope, k.UpdatedAt.UnixNano(), ifMatch)
	}
	if err != nil {
		return store.PersonalKey{}, fmt.Errorf("write personal key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return store.PersonalKey{}, store.ErrPrecondition
	}
	return k, nil
}

// Lanes implements store.Personal.
func (s *Store) Lanes(ctx context.Context, subject string) ([]store.Lane, error) {
	rows, err := s.pool.Query(ctx, `SELECT r.slug, l.key_id, l.entries, l.bytes, r.version, r.last_modified
		FROM personal_lanes l JOIN repos r ON r.id = l.repo_id WHERE l.subject = $1 AND r.version > 0 ORDER BY r.slug`, subject)
	if err != nil {
		return nil, fmt.Errorf("list lanes: %w", err)
	}
	lanes, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Lane, error) {
		var l store.Lane
		var slug string
		var modified int64
		err := row.Scan(&slug, &l.KeyID, &l.Entries, &l.Bytes, &l.Version, &modified)
		l.Lane, l.LastModified = store.LaneOf(slug), unixNano(modified)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("list lanes: %w", err)
	}
	return lanes, nil
}

// PersonalSubjects implements store.Personal.
func (s *Store) PersonalSubjects(ctx context.Context) ([]store.PersonalSubject, error) {
	rows, err := s.pool.Query(ctx, `SELECT s.subject, coalesce(max(k.key_id), ''), count(l.repo_id),
			coalesce(sum(l.entries), 0)::bigint, coalesce(sum(l.bytes), 0)::bigint, coalesce(max(r.last_modified), max(k.updated_at), 0)
		FROM (SELECT subject FROM personal_keys UNION SELECT subject FROM personal_lanes) s
		LEFT JOIN personal_keys k ON k.subject = s.subject
		LEFT JOIN personal_lanes l ON l.subject = s.subject
		LEFT JOIN repos r ON r.id = l.repo_id
		GROUP BY s.subject ORDER BY s.subject`)
	if err != nil {
		return nil, fmt.Errorf("list personal subjects: %w", err)
	}
	subjects, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.PersonalSubject, error) {
		var p store.PersonalSubject
		var modified int64
		err := row.Scan(&p.Subject, &p.KeyID, &p.Lanes, &p.Usage.Entries, &p.Usage.Bytes, &modified)
		if modified > 0 {
			p.LastModified = unixNano(modified)
		}
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("list personal subjects: %w", err)
	}
	return subjects, nil
}

var _ store.Personal = (*Store)(nil)
