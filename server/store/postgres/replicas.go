package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/store"
)

// dbNowNanos is the database's clock in Unix ns: every replica's record is
// stamped and aged by it, never by a replica's own clock.
const dbNowNanos = `(extract(epoch FROM clock_timestamp()) * 1e9)::bigint`

const (
	upsertReplica = `INSERT INTO replica_settings (replica, settings, seen_at) VALUES ($1, $2, ` + dbNowNanos + `)
		ON CONFLICT (replica) DO UPDATE SET settings = excluded.settings, seen_at = excluded.seen_at`
	selectReplicas = `SELECT replica, settings::text, seen_at FROM replica_settings
		WHERE replica <> $1 AND seen_at > ` + dbNowNanos + ` - $2 ORDER BY replica`
	deleteReplica = `DELETE FROM replica_settings WHERE replica = $1`
)

// ExchangeSettings implements store.ReplicaSettings.
func (s *Store) ExchangeSettings(ctx context.Context, replica string, settings []byte, ttl time.Duration) ([]store.ReplicaRecord, error) {
	b := &pgx.Batch{}
	b.Queue(upsertReplica, replica, string(settings))
	b.Queue(selectReplicas, replica, ttl.Nanoseconds())
	res := s.pool.SendBatch(ctx, b)
	defer res.Close()
	if _, err := res.Exec(); err != nil {
		return nil, fmt.Errorf("record replica settings: %w", err)
	}
	rows, err := res.Query()
	if err != nil {
		return nil, fmt.Errorf("read replica settings: %w", err)
	}
	defer rows.Close()
	var out []store.ReplicaRecord
	for rows.Next() {
		var r store.ReplicaRecord
		var settings string
		var seen int64
		if err := rows.Scan(&r.Replica, &settings, &seen); err != nil {
			return nil, fmt.Errorf("read replica settings: %w", err)
		}
		r.Settings, r.Seen = []byte(settings), time.Unix(0, seen)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read replica settings: %w", err)
	}
	return out, nil
}

// WithdrawSettings implements store.ReplicaSettings.
func (s *Store) WithdrawSettings(ctx context.Context, replica string) error {
	if _, err := s.pool.Exec(ctx, deleteReplica, replica); err != nil {
		return fmt.Errorf("withdraw replica settings: %w", err)
	}
	return nil
}
