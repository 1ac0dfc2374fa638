package memsync

import (
	"context"
	"errors"
	"slices"
	"sort"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"
)

// maxPushRounds is the first attempt plus the two retries PROTOCOL.md
// section 6 allows after a 412.
const maxPushRounds = 3

// push sends the local delta in batches, recovering from 412 and learning
// the server's entry cap from 413. Deletions held back by the mass deletion
// guard do not hold back the rest: it is sent, and the push returns the
// *MassDeletionError after. Nor does a file the server refuses: it is left
// out (Report.Refused) and the rest is sent again, in a round that does not
// count against the 412's; each such round leaves one more file out, so
// they end.
func (s *session) push(ctx context.Context) (err error) {
	if s.st.LastKnownChecksum == "" || s.emptied() || s.storeChanged() {
		// Never pulled: learn the server's state first, so the push has an
		// If-Match and nothing the server holds goes unseen. Or no synced
		// file is left: the pull writes them again. Or the server's store
		// changed: the pull re-baselines.
		if err := s.pull(ctx); err != nil {
			return err
		}
	}
	s.checkReviews(ctx)
	local, skipped, err := s.scan()
	if err != nil {
		return err
	}
	defer func() {
		// The guards' warnings on every file go in the report once the
		// batches are sent, off the way of the save being pushed.
		if werr := s.noteWarnings(local); err == nil {
			err = werr
		}
	}()
	savetrace.Mark("push.scanned", "")
	s.rep.Skipped = append(s.rep.Skipped, skipped...)
	s.warnSkippedOnce(skipped)
	var rounds pushRounds
	for {
		s.reopenReviews(local)
		deletes, held := s.deletions(local)
		deletes = s.holdSecretDeletes(deletes)
		if err = s.sendChanged(ctx, local, deletes); err == nil {
			return held
		}
		if rounds.giveUp(err, len(local)) {
			return err
		}
		if err := s.recover(ctx, err); err != nil {
			return err
		}
		if local, _, err = s.scan(); err != nil {
			return err
		}
	}
}

// pushRounds counts a push's failed rounds.
type pushRounds struct{ failed, refusals int }

// giveUp counts a failed round and reports whether the push must give up:
// after maxPushRounds rounds failed for the repo (a 412 each time), or
// after more refusals pinned on a file than there are files (one that
// keeps changing to content the server refuses).
func (r *pushRounds) giveUp(err error, files int) bool {
	var rej *rejectedError
	if errors.As(err, &rej) {
		r.refusals++
		return r.refusals > files
	}
	r.failed++
	return r.failed == maxPushRounds
}

// localDeletes lists keys deleted locally since the last sync that the
// server still holds at the agreed version. A file that cannot sync or is
// held back is not deleted.
func (s *session) localDeletes(local map[string]IndexEntry) []string {
	var out []string
	for k, base := range s.st.Base {
		if _, ok := local[k]; ok || s.unsyncable[k] || s.isHeld(k) {
			continue
		}
		if s.st.ServerChecksums[k] == base && !s.underReview(k, "") {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// deletions returns the local deletions to send. When more than half the
// synced files are gone at once, or no syncable file is left, none is,
// unless AllowMassDelete: they are held back (Report.HeldDeletions) and the
// returned *MassDeletionError says so; the caller sends the rest. Deletions
// once held back stay held back.
func (s *session) deletions(local map[string]IndexEntry) ([]string, error) {
	deletes := s.localDeletes(local)
	s.rep.HeldDeletions = nil
	if s.cfg.AllowMassDelete || len(deletes) == 0 {
		s.st.HeldDeletions = nil
		return deletes, nil
	}
	var send, held []string
	if len(local) == 0 || 2*len(deletes) > len(s.st.Base) {
		held = deletes
	} else {
		for _, k := range deletes {
			if slices.Contains(s.st.HeldDeletions, k) {
				held = append(held, k)
			} else {
				send = append(send, k)
			}
		}
	}
	s.st.HeldDeletions = held
	if len(held) == 0 {
		return send, nil
	}
	s.rep.HeldDeletions = held
	return send, &MassDeletionError{Repo: s.cfg.Repo, Dir: s.cfg.Dir, Missing: len(held), Known: len(s.st.Base), Lane: s.cfg.Lane != ""}
}

// accept records a batch the server stored, answered with resp.
func (s *session) accept(b batch, resp api.PutResponse) {
	for _, u := range b.Entries {
		s.st.ServerChecksums[u.Key] = u.Sum
		s.st.Base[u.Key] = u.Sum
		delete(s.st.Tombstones, u.Key)
		delete(s.st.Rejected, u.Key) // one refused for want of room before
		s.rep.Pushed = append(s.rep.Pushed, u.Key)
	}
	for _, k := range b.Deletes {
		delete(s.st.ServerChecksums, k)
		delete(s.st.Base, k)
		if s.st.Tombstones == nil {
			s.st.Tombstones = map[string]int64{}
		}
		s.st.Tombstones[k] = s.now().UnixMilli()
		s.rep.SoftDeleted = append(s.rep.SoftDeleted, k)
	}
	s.st.LastKnownChecksum = resp.Checksum
	s.st.LastKnownVersion = resp.Version
}

// acceptProposal records a batch the server took as a proposal: the keys
// the proposal holds are under review, and the rest, which the server
// already held as sent, are accepted as stored.
func (s *session) acceptProposal(b batch, resp api.PutResponse) {
	proposed := func(k string) bool { return slices.Contains(resp.Review.Keys, k) }
	note := func(k, sum string) {
		if s.st.Review == nil {
			s.st.Review = map[string]ReviewNote{}
		}
		s.st.Review[k] = ReviewNote{Proposal: resp.Review.Proposal, Checksum: sum, Base: s.st.ServerChecksums[k], State: ReviewPending}
		s.rep.Proposed = append(s.rep.Proposed, k)
	}
	var stored batch
	for _, u := range b.Entries {
		if proposed(u.Key) {
			note(u.Key, u.Sum)
		} else {
			stored.Entries = append(stored.Entries, u)
		}
	}
	for _, k := range b.Deletes {
		if proposed(k) {
			note(k, "")
		} else {
			stored.Deletes = append(stored.Deletes, k)
		}
	}
	s.accept(stored, resp)
}

// noteRejection remembers a refusal of one key's content so it is not sent
// again until the file changes, or, for want of room, in this push
// (holdRejected), and returns err. The refusal is recorded under the key
// as the server named it: redacted when the server's rules found a secret
// in the name.
func (s *session) noteRejection(err error, b batch) error {
	var ae *api.Error
	if !errors.As(err, &ae) || Classify(err) != Refused {
		return err
	}
	key, _ := ae.Details["key"].(string)
	if key == "" && len(b.Entries) == 1 && len(b.Deletes) == 0 {
		key = b.Entries[0].Key
	}
	for _, u := range b.Entries {
		if api.ShownKeyMatches(u.Key, key) {
			if s.st.Rejected == nil {
				s.st.Rejected = map[string]Rejection{}
			}
			r := Rejection{Checksum: u.Sum, Code: ae.Code, Message: ae.Message}
			s.st.Rejected[key] = r
			if r.forRoom() {
				s.noRoom, s.rep.NoRoom = &r, true
			}
			return &rejectedError{key: key, err: err}
		}
	}
	return err
}

// splitRefused returns b as batches of one item each when err refuses b
// for good without naming one of its entries, and nil otherwise. The
// deletions go first, so that the room they make on the server is there
// for the entries when the refusal was for want of room.
func splitRefused(err error, b batch) []batch {
	var ae *api.Error
	if !errors.As(err, &ae) || Classify(err) != Refused || len(b.Entries)+len(b.Deletes) < 2 {
		return nil
	}
	key, _ := ae.Details["key"].(string)
	for _, u := range b.Entries {
		if api.ShownKeyMatches(u.Key, key) {
			return nil
		}
	}
	parts := make([]batch, 0, len(b.Entries)+len(b.Deletes))
	for _, k := range b.Deletes {
		parts = append(parts, batch{Deletes: []string{k}})
	}
	for _, u := range b.Entries {
		parts = append(parts, batch{Entries: []upload{u}})
	}
	return parts
}
