package memsync

import (
	"context"
	"fmt"

	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/server/api"
)

// RestorePoint returns, with its content, the revision of key a restore
// brings back: version, or with version 0 the newest revision with
// content after the newest one (the content a deletion or the last write
// replaced). It reads the history without content to find it, then that
// one revision with its content.
func (e *Engine) RestorePoint(ctx context.Context, key string, version int64) (api.Revision, error) {
	if version == 0 {
		var err error
		if version, err = e.lastReplaced(ctx, key); err != nil {
			return api.Revision{}, err
		}
	}
	r, err := e.Revision(ctx, key, version)
	switch {
	case err != nil:
		return r, err
	case r.Deleted:
		return r, fmt.Errorf("version %d of %s is its deletion; pick a version with content from teammemd history %s", r.Version, key, shell.Quote(key))
	case r.Content == nil:
		return r, fmt.Errorf("the server no longer keeps the content of version %d of %s (pruned by its retention, or purged)", r.Version, key)
	}
	return r, nil
}

// lastReplaced returns the version of the newest revision of key that is
// not a deletion, after its newest one.
func (e *Engine) lastReplaced(ctx context.Context, key string) (int64, error) {
	var found int64
	seen := 0
	err := e.eachRevision(ctx, key, func(r api.Revision) bool {
		seen++
		if seen > 1 && !r.Deleted {
			found = r.Version
		}
		return found == 0
	})
	if err != nil {
		return 0, err
	}
	if found == 0 {
		return 0, fmt.Errorf("%s has no earlier content to restore", key)
	}
	return found, nil
}
