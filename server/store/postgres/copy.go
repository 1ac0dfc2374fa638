package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// Outcomes of copying one repo.
const (
	Copied   = "copied"     // new in the destination
	Updated  = "updated"    // the source had moved on since an earlier copy
	Current  = "up to date" // the destination already held it
	Diverged = "diverged"   // written in the destination since: left alone
)

// CopyReport counts what CopyFrom did.
type CopyReport struct {
	// Repos counts the repos by outcome.
	Repos map[string]int
	// Entries and Revisions count those written, in repos copied or
	// updated.
	Entries, Revisions int
	// TokensCopied, TokensRevoked and TokensKept count tokens new in the
	// destination, revoked there because they were in the source, and
	// already there.
	TokensCopied, TokensRevoked, TokensKept int
	// PurgesCopied counts the purge records new in the destination, whose
	// revisions' content was dropped there too.
	PurgesCopied int
	// ProposalsCopied counts the proposals of repos under review new in
	// the destination.
	ProposalsCopied int
	// BindingsCopied and BindingsKept count the identity bindings new in
	// the destination and those it held already.
	BindingsCopied, BindingsKept int
}

// CopyFrom copies every repo (entries, tombstones, versions, history),
// every token, the audit log of purges, the proposals and the identity
// bindings of src into s, and verifies each repo's copy: its version,
// counts of entries, tombstones and revisions, and checksums, each entry's
// recomputed from its value and the repo's from its entries. It is safe to
// run again: a repo already copied is left alone, one the source wrote
// since is copied again, and one written in s since is reported and left
// alone. Each repo is copied in one transaction; repo is called with each
// outcome. A purge the source made since an earlier copy drops the content
// in s too. The error lists every repo, token and binding that could not be
// copied.
func (s *Store) CopyFrom(ctx context.Context, src store.Exporter, repo func(slug, outcome string)) (CopyReport, error) {
	report := CopyReport{Repos: map[string]int{}}
	slugs, err := src.Repos(ctx)
	if err != nil {
		return report, err
	}
	var errs []error
	diverged := map[string]bool{}
	for _, slug := range slugs {
		outcome, err := s.copyOne(ctx, src, slug, &report)
		diverged[slug] = outcome == Diverged
		if ctx.Err() != nil {
			return report, ctx.Err()
		}
		if err != nil {
			errs = append(errs, err)
		}
		if outcome != "" {
			report.Repos[outcome]++
			repo(slug, outcome)
		}
	}
	if err := s.copyPurges(ctx, src, diverged, &report); err != nil {
		errs = append(errs, err)
	}
	if err := s.copyTokens(ctx, src, &report); err != nil {
		errs = append(errs, err)
	}
	if err := s.copyProposals(ctx, src, &report); err != nil {
		errs = append(errs, err)
	}
	if err := s.copyBindings(ctx, src, &report); err != nil {
		errs = append(errs, err)
	}
	return report, errors.Join(errs...)
}

// copyOne copies and verifies one repo.
func (s *Store) copyOne(ctx context.Context, src store.Exporter, slug string, report *CopyReport) (string, error) {
	d, err := src.ExportRepo(ctx, slug)
	if err != nil {
		return "", fmt.Errorf("read %s from the source: %w", slug, err)
	}
	outcome, err := s.importRepo(ctx, d)
	if err != nil || outcome == Diverged {
		return outcome, err
	}
	if outcome != Current {
		report.Entries += len(d.Entries)
		report.Revisions += len(d.Revisions)
	}
	got, err := s.ExportRepo(ctx, slug)
	if err != nil {
		return outcome, fmt.Errorf("verify %s: %w", slug, err)
	}
	if err := verifyCopy(d, got); err != nil {
		return outcome, fmt.Errorf("verify %s: %w", slug, err)
	}
	return outcome, nil
}

// importRepo writes d in one transaction holding the repo's row lock, unless
// the destination already holds it or was written since the last copy.
func (s *Store) importRepo(ctx context.Context, d store.RepoDump) (string, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return "", fmt.Errorf("copy %s: begin: %w", d.Repo, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var id, version int64
	var checksum string
	err = tx.QueryRow(ctx, "SELECT id, version, checksum FROM repos WHERE slug = $1 FOR UPDATE", d.Repo).Scan(&id, &version, &checksum)
	outcome := Copied
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		err = tx.QueryRow(ctx, "INSERT INTO repos (slug, version, last_modified, checksum, compacted_through) VALUES ($1, $2, $3, $4, $5) RETURNING id",
			d.Repo, d.Version, d.LastModified.UnixNano(), d.Checksum, d.CompactedThrough).Scan(&id)
	case err == nil:
		outcome, err = s.compareCopy(ctx, tx, id, version, checksum, d)
	}
	if err != nil || outcome == Current || outcome == Diverged {
		return outcome, err
	}
	if err := writeDump(ctx, tx, id, d); err != nil {
		return "", fmt.Errorf("copy %s: %w", d.Repo, err)
	}
	if _, err := tx.Exec(ctx, notifyChange, s.channel, notifyPayload(d.Version, d.Repo)); err != nil {
		return "", fmt.Errorf("copy %s: notify: %w", d.Repo, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return "", fmt.Errorf("copy %s: commit: %w", d.Repo, err)
	}
	return outcome, nil
}

// compareCopy decides what to do with a repo the destination holds: it is
// Current when it equals d, Updated (its rows cleared for d) when its
// history is the start of d's, and Diverged otherwise.
func (s *Store) compareCopy(ctx context.Context, tx pgx.Tx, id, version int64, checksum string, d store.RepoDump) (string, error) {
	have, err := store.ExportRevisions(ctx, pgQuerier(tx), id)
	if err != nil {
		return "", fmt.Errorf("copy %s: read the destination's history: %w", d.Repo, err)
	}
	if version > d.Version || !sameRecords(have, d.Revisions, version) {
		return Diverged, fmt.Errorf("repo %s was written in the destination since it was copied (v%d there, v%d in the source); left as it is", d.Repo, version, d.Version)
	}
	if version == d.Version && checksum == d.Checksum {
		return Current, nil
	}
	for _, q := range []string{"DELETE FROM entries WHERE repo_id = $1", "DELETE FROM revisions WHERE repo_id = $1"} {
		if _, err := tx.Exec(ctx, q, id); err != nil {
			return "", fmt.Errorf("copy %s: %w", d.Repo, err)
		}
	}
	_, err = tx.Exec(ctx, updateRepo, d.Version, d.LastModified.UnixNano(), d.Checksum, d.CompactedThrough, id)
	if err != nil {
		return "", fmt.Errorf("copy %s: %w", d.Repo, err)
	}
	return Updated, nil
}

// sameRecords reports whether have is exactly the records of want up to
// version upTo: the same keys, versions, checksums, authors, clients and
// times.
// Content is not compared: either side may have pruned it.
func sameRecords(have, want []store.RevisionDump, upTo int64) bool {
	i := 0
	for _, w := range want {
		if w.Version > upTo {
			continue
		}
		if i == len(have) {
			return false
		}
		h := have[i]
		if h.Key != w.Key || h.Version != w.Version || h.Checksum != w.Checksum || h.Deleted != w.Deleted ||
			h.Subject != w.Subject || h.Client != w.Client || !h.Time.Equal(w.Time) {
			return false
		}
		i++
	}
	return i == len(have)
}

// writeDump inserts d's entries and revisions for the repo row id.
func writeDump(ctx context.Context, tx pgx.Tx, id int64, d store.RepoDump) error {
	entries := make([][]any, len(d.Entries))
	for i, e := range d.Entries {
		if e.Checksum == "" {
			entries[i] = []any{id, e.Key, nil, nil, e.DeletedAt}
		} else {
			entries[i] = []any{id, e.Key, e.Checksum, []byte(e.Value), nil}
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"entries"}, []string{"repo_id", "key", "checksum", "value", "deleted_at"},
		pgx.CopyFromRows(entries)); err != nil {
		return fmt.Errorf("write entries: %w", err)
	}
	revs := make([][]any, len(d.Revisions))
	for i, r := range d.Revisions {
		var sum, content any
		if !r.Deleted {
			sum = r.Checksum
		}
		if r.Content != nil {
			content = []byte(*r.Content)
		}
		revs[i] = []any{id, r.Key, r.Version, sum, r.Subject, r.Client, r.Time.UnixNano(), content}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"revisions"}, []string{"repo_id", "key", "version", "checksum", "subject", "client", "time", "content"},
		pgx.CopyFromRows(revs)); err != nil {
		return fmt.Errorf("write history: %w", err)
	}
	return nil
}

// verifyCopy checks the destination's copy got against the source's d.
func verifyCopy(d, got store.RepoDump) error {
	live, deleted := map[string]string{}, map[string]int64{}
	for _, e := range got.Entries {
		if e.Checksum == "" {
			deleted[e.Key] = e.DeletedAt
			continue
		}
		if sum := api.EntryChecksum(e.Value); sum != e.Checksum {
			return fmt.Errorf("entry %q has checksum %s but its value hashes to %s", e.Key, e.Checksum, sum)
		}
		live[e.Key] = e.Checksum
	}
	srcLive, srcDeleted := 0, 0
	for _, e := range d.Entries {
		if e.Checksum == "" {
			srcDeleted++
		} else {
			srcLive++
			if live[e.Key] != e.Checksum {
				return fmt.Errorf("entry %q has checksum %q, want %q", e.Key, live[e.Key], e.Checksum)
			}
		}
	}
	switch sum := api.RepoChecksum(live, deleted); {
	case got.Version != d.Version || got.CompactedThrough != d.CompactedThrough:
		return fmt.Errorf("version %d compacted through %d, want %d through %d", got.Version, got.CompactedThrough, d.Version, d.CompactedThrough)
	case len(live) != srcLive || len(deleted) != srcDeleted || len(got.Revisions) != len(d.Revisions):
		return fmt.Errorf("%d entries, %d tombstones, %d revisions; want %d, %d, %d",
			len(live), len(deleted), len(got.Revisions), srcLive, srcDeleted, len(d.Revisions))
	case got.Checksum != d.Checksum || sum != d.Checksum:
		return fmt.Errorf("checksum %s (recomputed %s), want %s", got.Checksum, sum, d.Checksum)
	}
	return nil
}

// copyTokens copies the tokens the destination lacks, revokes there those
// revoked in the source, and verifies that every source token is there.
func (s *Store) copyTokens(ctx context.Context, src store.Exporter, report *CopyReport) error {
	toks, err := src.ListTokens(ctx)
	if err != nil {
		return fmt.Errorf("read tokens from the source: %w", err)
	}
	var errs []error
	for _, t := range toks {
		have, err := s.TokenByID(ctx, t.ID)
		switch {
		case errors.Is(err, store.ErrTokenNotFound):
			err = s.CreateToken(ctx, t)
			report.TokensCopied++
		case err != nil:
		case have.Hash != t.Hash:
			err = fmt.Errorf("token %s is another token in the destination; left as it is", t.ID)
		case !t.RevokedAt.IsZero() && have.RevokedAt.IsZero():
			err = s.RevokeToken(ctx, t.ID, t.RevokedAt)
			report.TokensRevoked++
		default:
			report.TokensKept++
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("copy token %s: %w", t.ID, err))
		}
	}
	return errors.Join(errs...)
}
