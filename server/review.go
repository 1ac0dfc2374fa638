package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
)

// ReviewRequired reports whether writes to repo are held for review
// ([[server.repo]] review = "required"), by this server's entries or, on a
// store shared by replicas, by any live replica's.
func (s *Server) ReviewRequired(repo string) bool {
	return reviewRequired(s.repos, repo) || s.replicas.requiresReview(repo)
}

// ProposalView is a proposal with the repo as it is now: what a reviewer
// decides on.
type ProposalView struct {
	Proposal store.Proposal
	// Checksum is the repo's checksum now.
	Checksum string
	// Conflicts, for a pending proposal, are its keys whose entry on the
	// server is no longer the one it was made against.
	Conflicts []string
	// Current maps each key of the proposal the repo holds live now to its
	// value; filled by ShowProposal only.
	Current map[string]string
}

// Propose holds req, a write by p to repo that passed the checks of a PUT,
// as a proposal. It answers 412 when ifMatch is set and differs from the
// repo's checksum, as a PUT would, and 413 when the proposal could never
// fit the repo's entry cap. It leaves out what would change nothing; when
// nothing is left it makes no proposal and returns the zero Proposal.
func (s *Server) Propose(ctx context.Context, p auth.Principal, repo, ifMatch string, req api.PutRequest) (store.Proposal, store.Snapshot, error) {
	if s.proposals == nil {
		return store.Proposal{}, store.Snapshot{}, errors.New("propose: the store cannot hold proposals")
	}
	snap, _, err := s.currentHashes(ctx, repo)
	if err != nil {
		return store.Proposal{}, snap, err
	}
	if ifMatch != "" && ifMatch != snap.Checksum {
		return store.Proposal{}, snap, applyError(repo, store.ErrPrecondition)
	}
	prop := store.Proposal{Repo: repo, Subject: p.Subject, Time: s.now().UTC(), Base: map[string]string{}, Entries: map[string]string{}}
	for k, v := range req.Entries {
		if cur := snap.EntryChecksums[k]; cur != api.EntryChecksum(v) {
			prop.Base[k], prop.Entries[k] = cur, v
		}
	}
	for _, k := range req.SoftDeleteKeys {
		if cur, live := snap.EntryChecksums[k]; live {
			prop.Base[k] = cur
			prop.Deletes = append(prop.Deletes, k)
		}
	}
	if len(prop.Base) == 0 {
		return store.Proposal{}, snap, nil
	}
	if err := s.fitsCap(snap, prop); err != nil {
		return store.Proposal{}, snap, err
	}
	prop, err = s.proposals.Propose(ctx, prop)
	if err != nil {
		return prop, snap, fmt.Errorf("propose to %s: %w", repo, err)
	}
	if err := s.supersede(ctx, prop); err != nil {
		s.log.Warn("older proposals not superseded", "repo", repo, "proposal", prop.ID, "err", err)
	}
	s.waker.Publish(store.ReviewWakeKey(repo))
	return prop, snap, nil
}

// supersede withdraws the author's older pending proposals to the repo
// whose every key prop holds: prop carries the author's latest version of
// all of them, so a reviewer sees that one only. Each is rejected in the
// author's name, with the reason naming prop.
func (s *Server) supersede(ctx context.Context, prop store.Proposal) error {
	older, err := s.proposals.ListProposals(ctx, store.ProposalQuery{
		Repo: prop.Repo, State: store.ProposalPending, Subject: prop.Subject, NoContent: true,
	})
	if err != nil {
		return fmt.Errorf("list older proposals: %w", err)
	}
	for _, o := range older {
		if o.ID >= prop.ID || slices.ContainsFunc(o.Keys(), func(k string) bool { _, held := prop.Base[k]; return !held }) {
			continue
		}
		_, err := s.proposals.DecideProposal(ctx, store.Decision{ID: o.ID, State: store.ProposalRejected, Reviewer: prop.Subject,
			Reason: fmt.Sprintf("superseded by proposal %d", prop.ID), Time: prop.Time})
		if err != nil && !errors.Is(err, store.ErrProposalDecided) {
			return fmt.Errorf("supersede proposal %d: %w", o.ID, err)
		}
	}
	return nil
}

// fitsCap refuses a proposal that would take the repo, as it is now, over
// the entry cap: approving it could only fail.
func (s *Server) fitsCap(snap store.Snapshot, prop store.Proposal) error {
	live := len(snap.EntryChecksums)
	for k := range prop.Entries {
		if _, ok := snap.EntryChecksums[k]; !ok {
			live++
		}
	}
	live -= len(prop.Deletes)
	if s.limits.MaxEntries > 0 && live > s.limits.MaxEntries {
		return applyError(prop.Repo, &store.TooManyEntriesError{Max: s.limits.MaxEntries, Received: live})
	}
	return nil
}

// Proposals lists the proposals q selects, without content. A reviewer of
// q.Repo sees every proposal; anyone else who may read it, only their own.
func (s *Server) Proposals(ctx context.Context, p auth.Principal, q store.ProposalQuery) ([]store.Proposal, error) {
	if !p.Allows(q.Repo, store.LevelRead) {
		return nil, denied(p, q.Repo, store.LevelRead)
	}
	if s.proposals == nil {
		return []store.Proposal{}, nil
	}
	if !p.Allows(q.Repo, store.LevelReview) {
		q.Subject = p.Subject
	}
	q.NoContent = true
	list, err := s.proposals.ListProposals(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list proposals of %s: %w", q.Repo, err)
	}
	return list, nil
}

// ShowProposal returns proposal id with its content and the current
// content of its keys, to a reviewer of its repo or to its author.
func (s *Server) ShowProposal(ctx context.Context, p auth.Principal, id int64) (ProposalView, error) {
	prop, err := s.readProposal(ctx, id)
	if err != nil {
		return ProposalView{}, err
	}
	if !p.Allows(prop.Repo, store.LevelReview) && !(prop.Subject == p.Subject && p.Allows(prop.Repo, store.LevelRead)) {
		return ProposalView{}, reviewDenied(p, prop.Repo, "see this proposal")
	}
	snap, err := s.store.Snapshot(ctx, prop.Repo, true)
	if errors.Is(err, store.ErrNotFound) {
		snap, err = store.Snapshot{Checksum: api.EmptyRepoChecksum}, nil
	}
	if err != nil {
		return ProposalView{}, fmt.Errorf("snapshot %s: %w", prop.Repo, err)
	}
	v := view(prop, snap)
	v.Current = map[string]string{}
	for _, k := range prop.Keys() {
		if val, ok := snap.Entries[k]; ok {
			v.Current[k] = val
		}
	}
	return v, nil
}

// view is prop with the repo's state snap.
func view(prop store.Proposal, snap store.Snapshot) ProposalView {
	v := ProposalView{Proposal: prop, Checksum: snap.Checksum}
	if prop.State == store.ProposalPending && !landed(prop, snap) {
		v.Conflicts = conflicts(prop, snap)
	}
	return v
}

// conflicts lists the keys of prop whose entry checksum in snap is not
// the one prop was made against, sorted.
func conflicts(prop store.Proposal, snap store.Snapshot) []string {
	var out []string
	for _, k := range prop.Keys() {
		if snap.EntryChecksums[k] != prop.Base[k] {
			out = append(out, k)
		}
	}
	return out
}

// landed reports whether snap already holds what prop proposes: an
// approval that stored it but was not recorded.
func landed(prop store.Proposal, snap store.Snapshot) bool {
	for k, v := range prop.Entries {
		if snap.EntryChecksums[k] != api.EntryChecksum(v) {
			return false
		}
	}
	for _, k := range prop.Deletes {
		if _, live := snap.EntryChecksums[k]; live {
			return false
		}
	}
	return true
}

// readProposal reads proposal id, answering 404 for an unknown one. Who
// may see it is the caller's to check, with reviewDenied.
func (s *Server) readProposal(ctx context.Context, id int64) (store.Proposal, error) {
	if s.proposals == nil {
		return store.Proposal{}, proposalNotFound()
	}
	prop, err := s.proposals.Proposal(ctx, id)
	if errors.Is(err, store.ErrProposalNotFound) {
		return prop, proposalNotFound()
	}
	if err != nil {
		return prop, fmt.Errorf("read proposal %d: %w", id, err)
	}
	return prop, nil
}

// proposalNotFound is the 404 for an id no proposal has, and for a
// proposal whose repo the caller may not read: the two answers are the
// same, so walking the ids names no repo under review.
func proposalNotFound() error {
	return api.NewError(http.StatusNotFound, api.CodeProposalNotFound, "there is no proposal with this id")
}

// reviewDenied is the 403 for p, who may read repo but not do what on its
// proposals; for p who may not read repo it is the 404 of an unknown id.
func reviewDenied(p auth.Principal, repo, what string) error {
	if !p.Allows(repo, store.LevelRead) {
		return proposalNotFound()
	}
	return api.NewError(http.StatusForbidden, api.CodeACLDenied,
		fmt.Sprintf("%s may not %s: it takes a review grant on %s", p.Subject, what, repo))
}

// checkReason refuses a reason (a rejection's, shown to the author and
// the reviewers; a purge's, kept in the audit log for good) in which the
// secret scan finds a secret, as a PUT's value is refused: 422 naming the
// rules, never what matched.
func (s *Server) checkReason(ctx context.Context, reason string) error {
	rules, err := s.textRules(ctx, reason)
	if err != nil {
		return fmt.Errorf("scan reason: %w", err)
	}
	if len(rules) == 0 {
		return nil
	}
	return api.NewError(http.StatusUnprocessableEntity, api.CodeSecretDetected,
		fmt.Sprintf("the reason looks like it holds a secret (rule %s); nothing was recorded", strings.Join(rules, ", "))).With("rule_ids", rules)
}

// textRules are the ids of the secret scan's rules that match text, a
// piece of free text the server keeps (a reason, a client's claim);
// none without a scanner.
func (s *Server) textRules(ctx context.Context, text string) ([]string, error) {
	if s.scanner == nil || text == "" {
		return nil, nil
	}
	hits, err := s.scanner.ScanEntries(ctx, map[string]string{"text": text})
	return hits["text"], err
}

// decidedError is the 409 for a proposal no longer pending.
func decidedError(prop store.Proposal) error {
	msg := fmt.Sprintf("proposal %d was already %s", prop.ID, prop.State)
	if prop.Reviewer != "" {
		msg += " by " + prop.Reviewer
	}
	return api.NewError(http.StatusConflict, api.CodeProposalDecided, msg).With("state", string(prop.State))
}

// checkEdit validates an edited approval: its keys are keys of prop, its
// values valid text within the entry limit, and it names the repo
// checksum it was made against.
func (s *Server) checkEdit(prop store.Proposal, edit api.ApproveRequest) error {
	if edit.IfMatch == "" {
		return api.NewError(http.StatusBadRequest, api.CodeInvalidRequest,
			"an edited approval needs if_match: the repo checksum the edit was made against")
	}
	for _, k := range slices.Concat(slices.Collect(maps.Keys(edit.Entries)), edit.Deletes) {
		if _, ok := prop.Base[k]; !ok {
			return api.NewError(http.StatusBadRequest, api.CodeInvalidKey,
				"an edited approval may change only the keys of the proposal").With("key", k)
		}
		if _, both := edit.Entries[k]; both && slices.Contains(edit.Deletes, k) {
			return api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "a key is both written and deleted").With("key", k)
		}
	}
	for k, v := range edit.Entries {
		if !utf8.ValidString(v) {
			return api.NewError(http.StatusBadRequest, api.CodeInvalidRequest, "a value is not valid UTF-8").With("key", k)
		}
		if len(v) > s.limits.MaxEntryBytes {
			return api.NewError(http.StatusRequestEntityTooLarge, api.CodeEntryTooLarge,
				fmt.Sprintf("a value is over the %d byte limit", s.limits.MaxEntryBytes)).With("key", k).With("max_bytes", s.limits.MaxEntryBytes)
		}
	}
	return nil
}

// editedWrite is prop's write with edit applied: edit's entries and
// deletions replace prop's for the keys they name.
func editedWrite(prop store.Proposal, edit api.ApproveRequest) (map[string]string, []string) {
	entries := maps.Clone(prop.Entries)
	deletes := slices.Clone(prop.Deletes)
	for k, v := range edit.Entries {
		entries[k] = v
		deletes = slices.DeleteFunc(deletes, func(d string) bool { return d == k })
	}
	for _, k := range edit.Deletes {
		delete(entries, k)
		if !slices.Contains(deletes, k) {
			deletes = append(deletes, k)
		}
	}
	slices.Sort(deletes)
	return entries, deletes
}
