package postgres

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// copyProposals copies the proposals of src that s lacks, with their ids
// (a daemon's record of its pending changes names them), and brings
// those copied before up to date: a decision or a purge the source made
// since. A proposal whose id names another proposal in s is reported and
// left alone. The id sequence then continues after the largest id.
func (s *Store) copyProposals(ctx context.Context, src store.Exporter, report *CopyReport) error {
	want, err := src.ListProposals(ctx, store.ProposalQuery{})
	if err != nil {
		return fmt.Errorf("read proposals from the source: %w", err)
	}
	var errs []error
	for _, p := range want {
		have, err := s.Proposal(ctx, p.ID)
		switch {
		case errors.Is(err, store.ErrProposalNotFound):
			err = s.importProposal(ctx, p)
			report.ProposalsCopied++
		case err != nil:
		case have.Repo != p.Repo || have.Subject != p.Subject || !have.Time.Equal(p.Time):
			err = errors.New("it is another proposal in the destination; left as it is")
		case !reflect.DeepEqual(have, p):
			err = s.updateProposal(ctx, p)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("copy proposal %d to %s: %w", p.ID, p.Repo, err))
		}
	}
	_, err = s.pool.Exec(ctx, `SELECT setval(pg_get_serial_sequence('proposals', 'id'), max(id)) FROM proposals HAVING max(id) IS NOT NULL`)
	if err != nil {
		errs = append(errs, fmt.Errorf("continue the proposal ids: %w", err))
	}
	return errors.Join(errs...)
}

// importProposal inserts p with its id, its decision and, unless purged,
// its content.
func (s *Store) importProposal(ctx context.Context, p store.Proposal) error {
	base, content, err := store.EncodeProposal(p)
	if err != nil {
		return err
	}
	var stored *string
	if p.Purged.IsZero() {
		stored = &content
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO proposals (id, repo, subject, time, base, content, state, reviewer, reason, decided, version, edited, purged_by, purged)
		OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		p.ID, p.Repo, p.Subject, p.Time.UnixNano(), base, stored, string(p.State), p.Reviewer, p.Reason,
		nanos(p.Decided), p.Version, p.Edited, p.PurgedBy, nanos(p.Purged))
	return err
}

// updateProposal records p's decision and purge on the copy made before.
func (s *Store) updateProposal(ctx context.Context, p store.Proposal) error {
	_, err := s.pool.Exec(ctx, `UPDATE proposals SET state = $2, reviewer = $3, reason = $4, decided = $5, version = $6, edited = $7,
		purged_by = $8, purged = $9::bigint, content = CASE WHEN $9::bigint <> 0 THEN NULL ELSE content END WHERE id = $1`,
		p.ID, string(p.State), p.Reviewer, p.Reason, nanos(p.Decided), p.Version, p.Edited, p.PurgedBy, nanos(p.Purged))
	return err
}

// nanos is t in Unix ns, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
