package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/store"
)

// Propose implements store.Proposals. It notifies every replica's waker
// under store.ReviewWakeKey in the same transaction.
func (s *Store) Propose(ctx context.Context, p store.Proposal) (store.Proposal, error) {
	return store.RecordProposal(p, func(args []any) (id int64, err error) {
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if err := tx.QueryRow(ctx, store.InsertProposal, args...).Scan(&id); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, notifyChange, s.channel, notifyPayload(id, store.ReviewWakeKey(p.Repo)))
			return err
		})
		return id, s.wrote(err)
	})
}
