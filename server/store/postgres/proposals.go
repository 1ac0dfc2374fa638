package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/store"
)

// Propose implements store.Proposals. It notifies every replica's waker
// under store.ReviewWakeKey in the same transaction.
func (s *Store) Propose(ctx context.Context, p store.Proposal) (store.Proposal, error) {
	base, content, err := store.EncodeProposal(p)
	if err != nil {
		return p, err
	}
	p.State = store.ProposalPending
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO proposals (repo, subject, time, base, content, state)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, p.Repo, p.Subject, p.Time.UnixNano(), base, content, p.State).Scan(&p.ID)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, notifyChange, s.channel, notifyPayload(p.ID, store.ReviewWakeKey(p.Repo)))
		return err
	})
	if err != nil {
		return p, fmt.Errorf("record proposal to %s: %w", p.Repo, err)
	}
	return p, nil
}

const proposalColumns = "id, repo, subject, time, base, state, reviewer, reason, decided, version, edited, purged_by, purged"

// Proposal implements store.Proposals.
func (s *Store) Proposal(ctx context.Context, id int64) (store.Proposal, error) {
	row := s.pool.QueryRow(ctx, "SELECT "+proposalColumns+", coalesce(content, '') FROM proposals WHERE id = $1", id)
	p, err := scanProposal(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, fmt.Errorf("proposal %d: %w", id, store.ErrProposalNotFound)
	}
	return p, err
}

// ListProposals implements store.Proposals.
func (s *Store) ListProposals(ctx context.Context, q store.ProposalQuery) ([]store.Proposal, error) {
	content := "coalesce(content, '')"
	if q.NoContent {
		content = "''"
	}
	rows, err := s.pool.Query(ctx, "SELECT "+proposalColumns+", "+content+` FROM proposals
		WHERE ($1 = '' OR repo = $1) AND ($2 = '' OR state = $2) AND ($3 = '' OR subject = $3) AND id > $4
		ORDER BY id`, q.Repo, string(q.State), q.Subject, q.AfterID)
	if err != nil {
		return nil, fmt.Errorf("list proposals: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Proposal, error) { return scanProposal(row) })
	if err != nil {
		return nil, fmt.Errorf("list proposals: %w", err)
	}
	return out, nil
}

// DecideProposal implements store.Proposals.
func (s *Store) DecideProposal(ctx context.Context, d store.Decision) (store.Proposal, error) {
	if err := store.ValidDecision(d); err != nil {
		return store.Proposal{}, err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE proposals SET state = $1, reviewer = $2, reason = $3, decided = $4, version = $5, edited = $6
		WHERE id = $7 AND state = 'pending'`, string(d.State), d.Reviewer, d.Reason, d.Time.UnixNano(), d.Version, d.Edited, d.ID)
	if err != nil {
		return store.Proposal{}, fmt.Errorf("decide proposal %d: %w", d.ID, err)
	}
	return s.afterUpdate(ctx, d.ID, tag.RowsAffected())
}

// PurgeProposal implements store.Proposals.
func (s *Store) PurgeProposal(ctx context.Context, id int64, actor string, at time.Time) (store.Proposal, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE proposals SET content = NULL, purged_by = $1, purged = $2
		WHERE id = $3 AND state = 'rejected'`, actor, at.UnixNano(), id)
	if err != nil {
		return store.Proposal{}, fmt.Errorf("purge proposal %d: %w", id, err)
	}
	return s.afterUpdate(ctx, id, tag.RowsAffected())
}

// afterUpdate returns the proposal an update changed, or why it changed
// none.
func (s *Store) afterUpdate(ctx context.Context, id, changed int64) (store.Proposal, error) {
	p, err := s.Proposal(ctx, id)
	if err != nil {
		return p, err
	}
	if changed == 0 {
		return p, fmt.Errorf("proposal %d is %s: %w", id, p.State, store.ErrProposalDecided)
	}
	return p, nil
}

// scanProposal reads the columns proposalColumns and the content.
func scanProposal(row pgx.Row) (store.Proposal, error) {
	var p store.Proposal
	var at, decided, purged int64
	var base, content, state string
	err := row.Scan(&p.ID, &p.Repo, &p.Subject, &at, &base, &state, &p.Reviewer, &p.Reason,
		&decided, &p.Version, &p.Edited, &p.PurgedBy, &purged, &content)
	if err != nil {
		return p, fmt.Errorf("read proposal: %w", err)
	}
	p.State = store.ProposalState(state)
	p.Time = unixNano(at)
	if decided != 0 {
		p.Decided = unixNano(decided)
	}
	if purged != 0 {
		p.Purged = unixNano(purged)
	}
	return p, store.DecodeProposal(&p, base, content)
}
