package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// Propose implements store.Proposals.
func (s *Store) Propose(ctx context.Context, p store.Proposal) (store.Proposal, error) {
	base, content, err := store.EncodeProposal(p)
	if err != nil {
		return p, err
	}
	p.State = store.ProposalPending
	err = s.wdb.QueryRowContext(ctx, `INSERT INTO proposals (repo, subject, time, base, content, state)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, p.Repo, p.Subject, p.Time.UnixNano(), base, content, p.State).Scan(&p.ID)
	if err != nil {
		return p, fmt.Errorf("record proposal to %s: %w", p.Repo, err)
	}
	return p, nil
}

const proposalColumns = "id, repo, subject, time, base, state, reviewer, reason, decided, version, edited, purged_by, purged"

// Proposal implements store.Proposals.
func (s *Store) Proposal(ctx context.Context, id int64) (store.Proposal, error) {
	row := s.rdb.QueryRowContext(ctx, "SELECT "+proposalColumns+", coalesce(content, '') FROM proposals WHERE id = ?", id)
	p, err := scanProposal(row)
	if errors.Is(err, sql.ErrNoRows) {
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
	rows, err := s.rdb.QueryContext(ctx, "SELECT "+proposalColumns+", "+content+` FROM proposals
		WHERE (?1 = '' OR repo = ?1) AND (?2 = '' OR state = ?2) AND (?3 = '' OR subject = ?3) AND id > ?4
		ORDER BY id`, q.Repo, q.State, q.Subject, q.AfterID)
	if err != nil {
		return nil, fmt.Errorf("list proposals: %w", err)
	}
	defer rows.Close()
	out := []store.Proposal{}
	for rows.Next() {
		p, err := scanProposal(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list proposals: %w", err)
	}
	return out, nil
}

// DecideProposal implements store.Proposals.
func (s *Store) DecideProposal(ctx context.Context, d store.Decision) (store.Proposal, error) {
	if err := store.ValidDecision(d); err != nil {
		return store.Proposal{}, err
	}
	res, err := s.wdb.ExecContext(ctx, `UPDATE proposals SET state = ?, reviewer = ?, reason = ?, decided = ?, version = ?, edited = ?
		WHERE id = ? AND state = 'pending'`, d.State, d.Reviewer, d.Reason, d.Time.UnixNano(), d.Version, d.Edited, d.ID)
	return s.afterUpdate(ctx, d.ID, res, err)
}

// PurgeProposal implements store.Proposals. The freed bytes are
// overwritten (secure_delete), and the write-ahead log is checkpointed and
// truncated as after Purge; when readers keep it from that, it is left to
// SQLite's next checkpoint, and the purge still stands.
func (s *Store) PurgeProposal(ctx context.Context, id int64, actor string, at time.Time) (store.Proposal, error) {
	res, err := s.wdb.ExecContext(ctx, `UPDATE proposals SET content = NULL, purged_by = ?, purged = ?
		WHERE id = ? AND state = 'rejected'`, actor, at.UnixNano(), id)
	p, err := s.afterUpdate(ctx, id, res, err)
	if err == nil {
		if residue := s.truncateLog(ctx); residue != "" {
			s.log.Warn("proposal purged, write-ahead log not truncated", "proposal", id, "residue", residue)
		}
	}
	return p, err
}

// afterUpdate returns the proposal an update of one row changed, or why
// it changed none.
func (s *Store) afterUpdate(ctx context.Context, id int64, res sql.Result, err error) (store.Proposal, error) {
	if err != nil {
		return store.Proposal{}, fmt.Errorf("update proposal %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return store.Proposal{}, fmt.Errorf("update proposal %d: %w", id, err)
	}
	p, err := s.Proposal(ctx, id)
	if err != nil {
		return p, err
	}
	if n == 0 {
		return p, fmt.Errorf("proposal %d is %s: %w", id, p.State, store.ErrProposalDecided)
	}
	return p, nil
}

// scanProposal reads the columns proposalColumns and the content.
func scanProposal(row interface{ Scan(...any) error }) (store.Proposal, error) {
	var p store.Proposal
	var at, decided, purged int64
	var base, content string
	err := row.Scan(&p.ID, &p.Repo, &p.Subject, &at, &base, &p.State, &p.Reviewer, &p.Reason,
		&decided, &p.Version, &p.Edited, &p.PurgedBy, &purged, &content)
	if err != nil {
		return p, fmt.Errorf("read proposal: %w", err)
	}
	p.Time = time.Unix(0, at).UTC()
	if decided != 0 {
		p.Decided = time.Unix(0, decided).UTC()
	}
	if purged != 0 {
		p.Purged = time.Unix(0, purged).UTC()
	}
	return p, store.DecodeProposal(&p, base, content)
}
