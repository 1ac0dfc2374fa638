package store

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"
)

// CheckPurge returns p as a backend runs it, its Time set to now when
// zero, or why p cannot run: a purge names a repo, a key and its actor.
func CheckPurge(p Purge) (Purge, error) {
	switch {
	case p.Repo == "" || p.Key == "":
		return p, errors.New("purge: empty repo or key")
	case p.Actor == "":
		return p, errors.New("purge: empty actor")
	}
	if p.Time.IsZero() {
		p.Time = time.Now()
	}
	return p, nil
}

// KeyRevision is what a purge needs to know of one revision of a key.
type KeyRevision struct {
	Version    int64
	HasContent bool
}

// PurgeTargets applies p to the revisions of its key, revs, ascending by
// version, of a key that is live when live is set: it returns the versions
// p names that hold content, ascending, and whether p covers the live
// revision, the newest one of a live key. It returns ErrRevisionNotFound
// for a key without revisions or a version that is not one of them, and
// ErrLiveRevision when p names the live revision without IncludeLive.
func PurgeTargets(revs []KeyRevision, p Purge, live bool) ([]int64, bool, error) {
	if len(revs) == 0 {
		return nil, false, fmt.Errorf("the key has no revisions: %w", ErrRevisionNotFound)
	}
	liveVersion := int64(-1)
	if live {
		liveVersion = revs[len(revs)-1].Version
	}
	named, err := namedRevisions(revs, p.Versions)
	if err != nil {
		return nil, false, err
	}
	var targets []int64
	deleteLive := false
	for _, r := range named {
		if r.Version == liveVersion {
			if !p.IncludeLive {
				if len(p.Versions) == 0 {
					continue // all revisions but the live one
				}
				return nil, false, fmt.Errorf("version %d: %w", r.Version, ErrLiveRevision)
			}
			deleteLive = true
		}
		if r.HasContent {
			targets = append(targets, r.Version)
		}
	}
	slices.Sort(targets)
	return slices.Compact(targets), deleteLive, nil
}

// namedRevisions returns the revisions of versions, or all of revs when
// versions is empty.
func namedRevisions(revs []KeyRevision, versions []int64) ([]KeyRevision, error) {
	if len(versions) == 0 {
		return revs, nil
	}
	named := make([]KeyRevision, 0, len(versions))
	for _, v := range versions {
		i, ok := slices.BinarySearchFunc(revs, v, func(r KeyRevision, v int64) int { return cmp.Compare(r.Version, v) })
		if !ok {
			return nil, fmt.Errorf("version %d is not a revision of the key: %w", v, ErrRevisionNotFound)
		}
		named = append(named, revs[i])
	}
	return named, nil
}
