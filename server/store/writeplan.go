package store

import (
	"fmt"
	"slices"

	"github.com/teammemd/teammemd/server/api"
)

// KeyView is what the write rules read of a repo as it stands before a
// write: its checksum, how many of its keys are live, and the entry
// checksum of each live key. Each backend gives its own view of the state
// it holds (the key-to-checksum view of the repo).
type KeyView interface {
	// Checksum is the repo checksum (the empty repo's for a repo never
	// written).
	Checksum() string
	// LiveCount is how many keys are live; tombstones do not count.
	LiveCount() int
	// EntryChecksum returns the entry checksum of key and whether key is
	// live; a key never written or tombstoned is not.
	EntryChecksum(key string) (string, bool)
}

// Upsert is a key's new value and its entry checksum.
type Upsert struct {
	Value, Checksum string
}

// WritePlan is what one Write changes in a repo.
type WritePlan struct {
	// Upserts holds only the keys whose value changes.
	Upserts map[string]Upsert
	// Deletes are the live keys to tombstone, each once, in the order the
	// Write names them.
	Deletes []string
	// Changed is the sorted union of both: empty for a write that changes
	// nothing, which does not bump the version.
	Changed []string
}

// PlanWrite checks w against the repo cur and works out what it changes.
// These are the write rules every backend keeps: an IfMatch other than
// cur's checksum is ErrPrecondition; a value equal to the live one, or a
// delete of a key that is not live, changes nothing; a key named more than
// once in w.Deletes is deleted once; a key may not be both written with a
// new value and deleted; and a write that changes something may not leave
// more live entries than w.MaxEntries (tombstones do not count), which is
// a *TooManyEntriesError.
func PlanWrite(cur KeyView, w Write) (WritePlan, error) {
	if w.IfMatch != "" && w.IfMatch != cur.Checksum() {
		return WritePlan{}, ErrPrecondition
	}
	p := WritePlan{Upserts: make(map[string]Upsert, len(w.Entries))}
	live := cur.LiveCount()
	for k, v := range w.Entries {
		sum := api.EntryChecksum(v)
		old, ok := cur.EntryChecksum(k)
		if ok && old == sum {
			continue
		}
		if !ok {
			live++
		}
		p.Upserts[k] = Upsert{Value: v, Checksum: sum}
		p.Changed = append(p.Changed, k)
	}
	var deleted map[string]bool
	for _, k := range w.Deletes {
		if _, upserted := p.Upserts[k]; upserted {
			return WritePlan{}, fmt.Errorf("key %q is both written and deleted", k)
		}
		if _, wasLive := cur.EntryChecksum(k); !wasLive || deleted[k] {
			continue
		}
		if deleted == nil {
			deleted = make(map[string]bool, len(w.Deletes))
		}
		deleted[k] = true
		p.Deletes = append(p.Deletes, k)
		p.Changed = append(p.Changed, k)
		live--
	}
	if w.MaxEntries > 0 && live > w.MaxEntries && len(p.Changed) > 0 {
		return WritePlan{}, &TooManyEntriesError{Max: w.MaxEntries, Received: live}
	}
	slices.Sort(p.Changed)
	return p, nil
}
