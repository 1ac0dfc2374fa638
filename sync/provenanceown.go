package memsync

import (
	"maps"

	"github.com/teammemd/teammemd/server/api"
)

// ownPut is one PUT of a run that changed the repo, as its answer named
// its revisions (PROTOCOL.md section 20): from the checksum its If-Match
// held to the one it made, at version, each key of changes by subject at
// the answer's time.
type ownPut struct {
	from, to string
	version  int64
	changes  map[string]Change
}

// ownPuts are the PUTs of one run in order; broken is set when one
// changed the repo without naming its revisions (a server without the
// extension, or one past its bound), so that they tell the history no
// longer.
type ownPuts struct {
	puts   []ownPut
	broken bool
}

// note records the answer resp to the PUT of b sent with If-Match
// ifMatch. An answer that changed nothing leaves the chain as it is.
func (o *ownPuts) note(ifMatch string, b batch, resp api.PutResponse) {
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
	p := ownPut{from: ifMatch, to: resp.Checksum, version: resp.Version, changes: make(map[string]Change, len(resp.Written.Keys))}
	for _, k := range resp.Written.Keys {
		c := Change{Version: resp.Version, Subject: resp.Written.Subject, Time: resp.LastModified.UTC()}
		if c.Checksum = sums[k]; c.Checksum == "" {
			c.Deleted = true
		}
		if c.check(k) != nil {
			o.broken = true
			return
		}
		p.changes[k] = c
	}
	o.puts = append(o.puts, p)
}

// advance returns old carried over the PUTs to st, the record a walk of
// the history would make, without reading it; nil when the PUTs do not
// lead from old to st one version at a time, each from the checksum the
// one before made: then a write the daemon did not make may lie between,
// and only the history tells.
func (o *ownPuts) advance(old *Provenance, st *State) *Provenance {
	if o == nil || o.broken || len(o.puts) == 0 || old == nil {
		return nil
	}
	from, version := old.Checksum, old.Version
	for _, p := range o.puts {
		if p.from != from || p.version != version+1 {
			return nil
		}
		from, version = p.to, p.version
	}
	if from != st.LastKnownChecksum || st.LastKnownVersion != version {
		return nil
	}
	w := provenanceWalk{p: &Provenance{Format: provenanceFormat, Repo: st.Repo, Server: st.Server, StoreID: st.StoreID,
		Checksum: st.LastKnownChecksum, Version: version, Complete: old.Complete, Keys: maps.Clone(old.Keys)}}
	for _, p := range o.puts {
		maps.Copy(w.p.Keys, p.changes)
	}
	return w.finish(st)
}
