package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/teammemd/teammemd/server/store"
)

// PersonalSource is a store whose personal lanes CopyPersonalFrom reads.
type PersonalSource interface {
	store.Exporter
	store.Personal
}

// PersonalCopyReport counts what CopyPersonalFrom did.
type PersonalCopyReport struct {
	// Lanes counts the lanes by outcome, as CopyReport.Repos.
	Lanes map[string]int
	// KeysCopied counts the subjects' keys new in the destination;
	// KeysKept those it held already, the same or replaced since.
	KeysCopied, KeysKept int
}

// CopyPersonalFrom copies every subject's key and personal lanes of src
// into s: each lane as CopyFrom copies a repo, verified, with its usage
// record. A key the destination holds already is kept as it is. It is safe
// to run again, and the error lists every lane and key that could not be
// copied.
func (s *Store) CopyPersonalFrom(ctx context.Context, src PersonalSource) (PersonalCopyReport, error) {
	report := PersonalCopyReport{Lanes: map[string]int{}}
	subjects, err := src.PersonalSubjects(ctx)
	if err != nil {
		return report, fmt.Errorf("read personal lanes from the source: %w", err)
	}
	var errs []error
	for _, p := range subjects {
		if err := s.copyPersonalKey(ctx, src, p, &report); err != nil {
			errs = append(errs, err)
		}
		lanes, err := src.Lanes(ctx, p.Subject)
		if err != nil {
			errs = append(errs, fmt.Errorf("read the lanes of %s from the source: %w", p.Subject, err))
			continue
		}
		for _, l := range lanes {
			outcome, err := s.copyLane(ctx, src, p.Subject, l)
			if ctx.Err() != nil {
				return report, ctx.Err()
			}
			if err != nil {
				errs = append(errs, err)
			}
			if outcome != "" {
				report.Lanes[outcome]++
			}
		}
	}
	return report, errors.Join(errs...)
}

// copyPersonalKey copies the key of p unless the destination has one.
func (s *Store) copyPersonalKey(ctx context.Context, src PersonalSource, p store.PersonalSubject, report *PersonalCopyReport) error {
	if p.KeyID == "" {
		return nil
	}
	k, err := src.PersonalKey(ctx, p.Subject)
	if err != nil {
		return fmt.Errorf("read the personal key of %s from the source: %w", p.Subject, err)
	}
	_, err = s.PutPersonalKey(ctx, k, "")
	switch {
	case errors.Is(err, store.ErrPrecondition):
		report.KeysKept++
	case err != nil:
		return fmt.Errorf("copy the personal key of %s: %w", p.Subject, err)
	default:
		report.KeysCopied++
	}
	return nil
}

// copyLane copies one lane of subject and records its usage.
func (s *Store) copyLane(ctx context.Context, src PersonalSource, subject string, l store.Lane) (string, error) {
	repo := store.PersonalRepo(subject, l.Lane)
	var ignored CopyReport
	outcome, err := s.copyOne(ctx, src, repo, &ignored)
	if err != nil || outcome == Diverged {
		return outcome, err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO personal_lanes (repo_id, subject, key_id, entries, bytes)
		SELECT id, $2, $3, $4, $5 FROM repos WHERE slug = $1
		ON CONFLICT (repo_id) DO UPDATE SET entries = excluded.entries, bytes = excluded.bytes`,
		repo, subject, l.KeyID, l.Entries, l.Bytes)
	if err != nil {
		return outcome, fmt.Errorf("copy the usage of a lane of %s: %w", subject, err)
	}
	return outcome, nil
}
