package memsync

import (
	"maps"
	"slices"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// chainLink is one write that took the repo from one checksum to the
// next, at version, as an answer named its revisions (PROTOCOL.md section
// 20): each key of changes by its author at the answer's time.
type chainLink struct {
	from, to string
	version  int64
	changes  map[string]Change
}

// writeChain is the writes one run saw take the repo on, in order: the
// answers to its PUTs, and the change wait's answer its pull took. broken
// is set when a PUT changed the repo without naming its revisions (a
// server without the extension, or one past its bound), so that the
// chain tells the history no longer.
type writeChain struct {
	links  []chainLink
	broken bool
}

// note records the answer resp to the PUT of b sent with If-Match
// ifMatch. An answer that changed nothing leaves the chain as it is.
func (o *writeChain) note(ifMatch string, b batch, resp api.PutResponse) {
	if resp.Checksum == ifMatch {
		return
	}
	if resp.Written == nil || resp.Review != nil {
		o.broken = true
		return
	}
	sums := make(map[string]string, len(b.Entries))
	for _, u := range b.Entries {
		sums[u.Key] = u.Sum
	}
	o.add(ifMatch, resp.Checksum, resp.Version, resp.LastModified, resp.Written, func(k string) (string, bool) {
		if sum, ok := sums[k]; ok {
			return sum, false
		}
		return "", slices.Contains(b.Deletes, k)
	})
}

// noteAnswer records the write a change wait's answer h named, the
// whole hashes after it: the answer the run's pull took. An answer that
// names none adds nothing; the chain then reaches no further than the
// state, which the pull moved.
func (o *writeChain) noteAnswer(h api.HashesResponse) {
	w := h.Written
	if w == nil || w.Since == "" {
		return
	}
	o.add(w.Since, h.Checksum, h.Version, h.LastModified, w, func(k string) (string, bool) {
		if sum, ok := h.EntryChecksums[k]; ok {
			return sum, false
		}
		_, deleted := h.DeletedEntries[k]
		return "", deleted
	})
}

// add appends the link of the write w from checksum from to to at
// version, made at time at, each of its keys' checksum or deletion as
// change tells; a key it cannot tell, or a malformed change, breaks the
// chain.
func (o *writeChain) add(from, to string, version int64, at time.Time, w *api.Written, change func(k string) (sum string, deleted bool)) {
	l := chainLink{from: from, to: to, version: version, changes: make(map[string]Change, len(w.Keys))}
	for _, k := range w.Keys {
		c := Change{Version: version, Subject: w.Subject, Time: at.UTC()}
		c.Checksum, c.Deleted = change(k)
		if c.check(k) != nil {
			o.broken = true
			return
		}
		l.changes[k] = c
	}
	o.links = append(o.links, l)
}

// advance returns old carried over the chain to st (in place: old is the
// caller's to change), the record a walk of the history would make,
// without reading it; nil, old untouched, when the chain does not lead
// from old to st one version at a time, each link from the checksum the
// one before made: then a write it does not name may lie between, and
// only the history tells.
func (o *writeChain) advance(old *Provenance, st *State) *Provenance {
	if o == nil || o.broken || len(o.links) == 0 || old == nil {
		return nil
	}
	from, version := old.Checksum, old.Version
	for _, l := range o.links {
		if l.from != from || l.version != version+1 {
			return nil
		}
		from, version = l.to, l.version
	}
	if from != st.LastKnownChecksum || st.LastKnownVersion != version {
		return nil
	}
	w := provenanceWalk{p: old}
	w.p.Format, w.p.Repo, w.p.Server, w.p.StoreID = provenanceFormat, st.Repo, st.Server, st.StoreID
	w.p.Checksum, w.p.Version = st.LastKnownChecksum, version
	if w.p.Keys == nil {
		w.p.Keys = map[string]Change{}
	}
	for _, l := range o.links {
		maps.Copy(w.p.Keys, l.changes)
	}
	return w.finish(st)
}
