package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/store"
)

// Propose implements store.Proposals. It notifies every replica's waker
// under store.ReviewWakeKey in the same transaction.
func (s *Store) Propose(ctx context.Context, p store.Proposal) (store.Proposal, error) {
	p, args, err := store.ProposalRecord(p)
	if err != nil {
		return p, err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, store.InsertProposal, args...).Scan(&p.ID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, notifyChange, s.channel, notifyPayload(p.ID, store.ReviewWakeKey(p.Repo)))
		return err
	})
	if err != nil {
		return p, fmt.Errorf("record proposal to %s: %w", p.Repo, err)
	}
	return p, nil
}
