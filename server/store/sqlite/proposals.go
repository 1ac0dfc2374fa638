package sqlite

import (
	"context"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// Propose implements store.Proposals.
func (s *Store) Propose(ctx context.Context, p store.Proposal) (store.Proposal, error) {
	return store.RecordProposal(p, func(args []any) (id int64, err error) {
		err = s.wdb.QueryRowContext(ctx, store.InsertProposal, args...).Scan(&id)
		return id, s.wrote(err)
	})
}

// PurgeProposal implements store.Proposals. The freed bytes are
// overwritten (secure_delete), and the write-ahead log is checkpointed and
// truncated as after Purge; when readers keep it from that, it is left to
// SQLite's next checkpoint, and the purge still stands.
func (s *Store) PurgeProposal(ctx context.Context, id int64, actor string, at time.Time) (store.Proposal, error) {
	p, err := s.sqlParts.PurgeProposal(ctx, id, actor, at)
	if err == nil {
		if residue := s.truncateLog(ctx); residue != "" {
			s.log.Warn("proposal purged, write-ahead log not truncated", "proposal", id, "residue", residue)
		}
	}
	return p, err
}
