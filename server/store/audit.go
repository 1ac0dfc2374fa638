package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The actions of the audit.
const (
	AuditWrote    = "wrote"
	AuditDeleted  = "deleted"
	AuditRestored = "restored"
	AuditPurged   = "purged"
	AuditProposed = "proposed"
	AuditApproved = "approved"
	AuditRejected = "rejected"
)

// AuditEvent is one line of the audit: who did what to which entry and
// when. It never holds content.
type AuditEvent struct {
	Time    time.Time `json:"time"`
	Actor   string    `json:"actor"`
	Action  string    `json:"action"`
	Repo    string    `json:"repo"`
	Key     string    `json:"key"`
	Version int64     `json:"version,omitempty"`
	// Detail is the version a restore brought back, a purge's versions
	// and reason, or the proposal a review event is about.
	Detail string `json:"detail,omitempty"`
}

// AuditReader is what Audit reads: the history, the purge records and the
// proposals.
type AuditReader interface {
	HistoryReader
	Purges(ctx context.Context, repo string) ([]PurgeRecord, error)
	ListProposals(ctx context.Context, q ProposalQuery) ([]Proposal, error)
}

// Audit returns who wrote, deleted, restored or purged what in repo (every
// repo when empty) at or after from, oldest first; "teammemd admin audit"
// and the web view show it. It reads no content, and the history only from from
// on, but for the keys changed since then, whose earlier revisions tell a
// restore from a write.
func Audit(ctx context.Context, st AuditReader, repo string, from time.Time) ([]AuditEvent, error) {
	revs, err := ListHistory(ctx, st, HistoryQuery{Repo: repo, Since: from, NoContent: true})
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	if !from.IsZero() {
		earlier, err := earlierRevisions(ctx, st, revs)
		if err != nil {
			return nil, err
		}
		revs = append(earlier, revs...)
	}
	purges, err := st.Purges(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("read purges: %w", err)
	}
	proposals, err := st.ListProposals(ctx, ProposalQuery{Repo: repo, NoContent: true})
	if err != nil {
		return nil, fmt.Errorf("read proposals: %w", err)
	}
	events := revisionEvents(revs)
	for _, p := range purges {
		events = append(events, purgeEvent(p))
	}
	for _, p := range proposals {
		events = append(events, proposalEvents(p)...)
	}
	events = slices.DeleteFunc(events, func(e AuditEvent) bool { return e.Time.Before(from) })
	slices.SortStableFunc(events, func(a, b AuditEvent) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Repo, b.Repo), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Key, b.Key))
	})
	return events, nil
}

// earlierRevisions reads, without content, the revisions of each key of
// revs that came before its oldest one there.
func earlierRevisions(ctx context.Context, st AuditReader, revs []Revision) ([]Revision, error) {
	type entry struct{ repo, key string }
	oldest := map[entry]int64{}
	var order []entry
	for _, r := range revs {
		e := entry{r.Repo, r.Key}
		if v, seen := oldest[e]; !seen || r.Version < v {
			if !seen {
				order = append(order, e)
			}
			oldest[e] = r.Version
		}
	}
	var out []Revision
	for _, e := range order {
		q := HistoryQuery{Repo: e.repo, Key: e.key, Before: oldest[e], NoContent: true}
		err := st.History(ctx, q, func(r Revision) error {
			out = append(out, r)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read history of %s in %s: %w", e.key, e.repo, err)
		}
	}
	return out, nil
}

// revisionEvents turns revisions into events, telling a restore (a write
// of content the key held before, other than what it held just before)
// from other writes.
func revisionEvents(revs []Revision) []AuditEvent {
	type entry struct{ repo, key string }
	byKey := map[entry][]Revision{}
	for _, r := range revs {
		e := entry{r.Repo, r.Key}
		byKey[e] = append(byKey[e], r)
	}
	var out []AuditEvent
	for _, list := range byKey {
		slices.SortFunc(list, func(a, b Revision) int { return cmp.Compare(a.Version, b.Version) })
		seen := map[string]int64{}
		prev := ""
		for _, r := range list {
			ev := AuditEvent{Time: r.Time, Actor: r.Subject, Action: AuditWrote, Repo: r.Repo, Key: r.Key, Version: r.Version}
			switch v, ok := seen[r.Checksum]; {
			case r.Deleted:
				ev.Action = AuditDeleted
			case ok && r.Checksum != prev:
				ev.Action, ev.Detail = AuditRestored, "content of version "+strconv.FormatInt(v, 10)
			}
			if !r.Deleted {
				seen[r.Checksum] = r.Version
			}
			prev = r.Checksum
			out = append(out, ev)
		}
	}
	return out
}

// purgeEvent turns a purge record into an event.
func purgeEvent(p PurgeRecord) AuditEvent {
	detail := "versions " + JoinVersions(p.Versions)
	if p.DeletedVersion > 0 {
		detail += ", live entry deleted at " + strconv.FormatInt(p.DeletedVersion, 10)
	}
	if p.Reason != "" {
		detail += ": " + p.Reason
	}
	return AuditEvent{Time: p.Time, Actor: p.Actor, Action: AuditPurged, Repo: p.Repo, Key: p.Key, Detail: detail}
}

// proposalEvents turns a proposal into events for each of its keys: the
// proposal, its decision, and the purge of its content.
func proposalEvents(p Proposal) []AuditEvent {
	id := "proposal " + strconv.FormatInt(p.ID, 10)
	var out []AuditEvent
	for _, k := range p.Keys() {
		out = append(out, AuditEvent{Time: p.Time, Actor: p.Subject, Action: AuditProposed, Repo: p.Repo, Key: k, Detail: id})
		if p.State != ProposalPending {
			out = append(out, decisionEvent(p, k, id))
		}
		if !p.Purged.IsZero() {
			out = append(out, AuditEvent{Time: p.Purged, Actor: p.PurgedBy, Action: AuditPurged, Repo: p.Repo, Key: k, Detail: "content of rejected " + id})
		}
	}
	return out
}

// decisionEvent is the approval or rejection of proposal p for key k.
func decisionEvent(p Proposal, k, id string) AuditEvent {
	ev := AuditEvent{Time: p.Decided, Actor: p.Reviewer, Action: AuditApproved, Repo: p.Repo, Key: k, Version: p.Version, Detail: id + " by " + p.Subject}
	if p.State == ProposalRejected {
		ev.Action = AuditRejected
	}
	if p.Edited {
		ev.Detail += ", edited"
	}
	if p.Reason != "" {
		ev.Detail += ": " + p.Reason
	}
	return ev
}

// JoinVersions writes versions as "1, 3 and 5".
func JoinVersions(vs []int64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatInt(v, 10)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
