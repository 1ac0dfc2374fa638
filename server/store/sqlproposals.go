package store

import (
	"context"
	"fmt"
	"time"
)

// proposalColumns are the columns of a proposal scanProposal reads before
// its content.
const proposalColumns = "id, repo, subject, time, base, state, reviewer, reason, decided, version, edited, purged_by, purged"

// The proposals table's statements, the same in every SQL dialect the
// backends speak.
const (
	// InsertProposal records a new proposal (the arguments RecordProposal
	// gives) and returns its id.
	InsertProposal = `INSERT INTO proposals (repo, subject, time, base, content, state)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`
	proposalByID = "SELECT " + proposalColumns + ", coalesce(content, '') FROM proposals WHERE id = $1"
	// listProposals takes the content column as %s.
	listProposals = "SELECT " + proposalColumns + `, %s FROM proposals
		WHERE ($1 = '' OR repo = $1) AND ($2 = '' OR state = $2) AND ($3 = '' OR subject = $3) AND id > $4
		ORDER BY id`
	decideProposal = `UPDATE proposals SET state = $1, reviewer = $2, reason = $3, decided = $4, version = $5, edited = $6
		WHERE id = $7 AND state = 'pending'`
	purgeProposal = `UPDATE proposals SET content = NULL, purged_by = $1, purged = $2
		WHERE id = $3 AND state = 'rejected'`
)

// RecordProposal records p as pending with insert, which runs
// InsertProposal with args and returns the new proposal's id, and returns
// p as recorded.
func RecordProposal(p Proposal, insert func(args []any) (int64, error)) (Proposal, error) {
	base, content, err := EncodeProposal(p)
	if err != nil {
		return p, err
	}
	p.State = ProposalPending
	p.ID, err = insert([]any{p.Repo, p.Subject, p.Time.UnixNano(), base, content, string(p.State)})
	if err != nil {
		return p, fmt.Errorf("record proposal to %s: %w", p.Repo, err)
	}
	return p, nil
}

// SQLProposals implements every method of Proposals but Propose on a
// backend's SQL; the backend records a proposal with InsertProposal in
// the way its waker needs.
type SQLProposals struct {
	DB SQL
}

// Proposal implements Proposals.
func (s SQLProposals) Proposal(ctx context.Context, id int64) (Proposal, error) {
	p, found, err := queryFirst(ctx, s.DB, scanProposal, proposalByID, id)
	switch {
	case err != nil:
		return p, err
	case !found:
		return p, fmt.Errorf("proposal %d: %w", id, ErrProposalNotFound)
	}
	return p, nil
}

// ListProposals implements Proposals.
func (s SQLProposals) ListProposals(ctx context.Context, q ProposalQuery) ([]Proposal, error) {
	content := "coalesce(content, '')"
	if q.NoContent {
		content = "''"
	}
	out, err := queryAll(ctx, s.DB, scanProposal, fmt.Sprintf(listProposals, content), q.Repo, string(q.State), q.Subject, q.AfterID)
	if err != nil {
		return nil, fmt.Errorf("list proposals: %w", err)
	}
	return out, nil
}

// DecideStmt is the statement that records d on proposal d.ID while it
// is pending; it changes no row when the proposal is not.
func DecideStmt(d Decision) Stmt {
	return Stmt{SQL: decideProposal, Args: []any{string(d.State), d.Reviewer, d.Reason, d.Time.UnixNano(), d.Version, d.Edited, d.ID}}
}

// SelectProposalState reads the state of proposal $1; LockProposal also locks
// its row for the rest of the transaction, where the database locks rows
// (PostgreSQL).
const (
	SelectProposalState = "SELECT state FROM proposals WHERE id = $1"
	LockProposal        = SelectProposalState + " FOR UPDATE"
)

// DecidedError is Apply's error for a write whose Decide names a
// proposal that is not pending, or not there.
func DecidedError(id int64, state string) error {
	if state == "" {
		return fmt.Errorf("proposal %d: %w", id, ErrProposalNotFound)
	}
	return fmt.Errorf("proposal %d is %s: %w", id, state, ErrProposalDecided)
}

// DecideProposal implements Proposals.
func (s SQLProposals) DecideProposal(ctx context.Context, d Decision) (Proposal, error) {
	if err := ValidDecision(d); err != nil {
		return Proposal{}, err
	}
	n, err := s.DB.Exec(ctx, DecideStmt(d))
	if err != nil {
		return Proposal{}, fmt.Errorf("decide proposal %d: %w", d.ID, err)
	}
	return s.afterUpdate(ctx, d.ID, n)
}

// PurgeProposal implements Proposals.
func (s SQLProposals) PurgeProposal(ctx context.Context, id int64, actor string, at time.Time) (Proposal, error) {
	n, err := s.DB.Exec(ctx, Stmt{SQL: purgeProposal, Args: []any{actor, at.UnixNano(), id}})
	if err != nil {
		return Proposal{}, fmt.Errorf("purge proposal %d: %w", id, err)
	}
	return s.afterUpdate(ctx, id, n)
}

// afterUpdate returns the proposal an update changed, or why it changed
// none.
func (s SQLProposals) afterUpdate(ctx context.Context, id, changed int64) (Proposal, error) {
	p, err := s.Proposal(ctx, id)
	if err != nil {
		return p, err
	}
	if changed == 0 {
		return p, fmt.Errorf("proposal %d is %s: %w", id, p.State, ErrProposalDecided)
	}
	return p, nil
}

// scanProposal reads the columns proposalColumns and the content.
func scanProposal(row Scanner) (Proposal, error) {
	var p Proposal
	var at, decided, purged int64
	var base, content, state string
	err := row.Scan(&p.ID, &p.Repo, &p.Subject, &at, &base, &state, &p.Reviewer, &p.Reason,
		&decided, &p.Version, &p.Edited, &p.PurgedBy, &purged, &content)
	if err != nil {
		return p, fmt.Errorf("read proposal: %w", err)
	}
	p.State = ProposalState(state)
	p.Time = fromUnixNano(at)
	if decided != 0 {
		p.Decided = fromUnixNano(decided)
	}
	if purged != 0 {
		p.Purged = fromUnixNano(purged)
	}
	return p, DecodeProposal(&p, base, content)
}
