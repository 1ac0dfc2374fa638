package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/store"
)

// decisions are the states of the proposals a batch's writes approve,
// their rows locked for the batch's transaction, so that no rejection
// lands between the check and the commit.
type decisions map[int64]store.ProposalState

// lockDecisions locks the row of each proposal the writes of batch
// approve and reads its state ("" for none); nil when no write approves
// one.
func lockDecisions(ctx context.Context, tx querier, batch []*writeReq) (decisions, error) {
	var ds decisions
	for _, r := range batch {
		if r.w.Decide == nil {
			continue
		}
		if ds == nil {
			ds = decisions{}
		}
		var state string
		err := tx.QueryRow(ctx, store.LockProposal, r.w.Decide.ID).Scan(&state)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("lock proposal %d: %w", r.w.Decide.ID, err)
		}
		ds[r.w.Decide.ID] = store.ProposalState(state)
	}
	return ds, nil
}

// check fails a write that approves a proposal no longer pending.
func (ds decisions) check(w store.Write) error {
	if w.Decide == nil {
		return nil
	}
	if err := store.ValidDecision(*w.Decide); err != nil {
		return err
	}
	if state := ds[w.Decide.ID]; state != store.ProposalPending {
		return store.DecidedError(w.Decide.ID, string(state))
	}
	return nil
}

// queue queues w's decision at next's version, the version w made.
func (ds decisions) queue(b *pgx.Batch, next *repoState, w store.Write) {
	if w.Decide == nil {
		return
	}
	d := *w.Decide
	d.Version = next.version
	st := store.DecideStmt(d)
	b.Queue(st.SQL, st.Args...)
	ds[d.ID] = d.State
}

// anyDecides reports whether a write of batch approves a proposal.
func anyDecides(batch []*writeReq) bool {
	for _, r := range batch {
		if r.w.Decide != nil {
			return true
		}
	}
	return false
}
