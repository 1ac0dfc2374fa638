package memsync

import (
	"context"
	"fmt"
	"os"

	"github.com/teammemd/teammemd/sync/fsio"
)

// ErrLocked is returned when another teammemd holds a repo's lock.
var ErrLocked = fsio.ErrLocked

// lockTeamDir takes the lock on the team directory itself. The state lock
// keeps out the processes that share this engine's state directory; this
// one also keeps out a teammemd with another state directory (a second
// daemon, say) on the same team directory, which would otherwise write
// into it at the same time from another idea of what is synced.
func (e *Engine) lockTeamDir(ctx context.Context) (*fsio.Lock, error) {
	f, err := os.Open(e.cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("open the team directory to lock it: %w", err)
	}
	return fsio.WaitLock(ctx, f, "team directory "+e.cfg.Dir+", which a teammemd with another state directory is syncing", func() {
		e.log.Warn("another teammemd, with another state directory, is syncing this team directory; waiting for it (stop one of them)", "dir", e.cfg.Dir)
	})
}
