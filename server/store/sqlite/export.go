package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/teammemd/teammemd/server/store"
)

// ExportRepo implements store.Exporter, reading the repo in one read
// transaction.
func (s *Store) ExportRepo(ctx context.Context, repo string) (store.RepoDump, error) {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return store.RepoDump{}, fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	st, err := readRepoRow(ctx, tx, repo)
	if err != nil {
		return store.RepoDump{}, err
	}
	d := store.RepoDump{Repo: repo, Version: st.version, LastModified: st.lastModified, Checksum: st.checksum,
		CompactedThrough: st.compactedThrough}
	if err := store.ExportKeys(ctx, sqlQuerier(tx), st.id, &d); err != nil {
		return store.RepoDump{}, err
	}
	return d, nil
}
