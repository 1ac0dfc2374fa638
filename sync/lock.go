package memsync

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/teammemd/teammemd/sync/fsio"
)

// ErrLocked is returned when another teammemd holds a repo's lock.
var ErrLocked = fsio.ErrLocked

// lockTeamDir takes the lock on the team directory dir itself. The state lock
// keeps out the processes that share this engine's state directory; this
// one also keeps out a teammemd with another state directory (a second
// daemon, say) on the same team directory, which would otherwise write
// into it at the same time from another idea of what is synced.
func lockTeamDir(ctx context.Context, dir string, log *slog.Logger) (*fsio.Lock, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("open the team directory to lock it: %w", err)
	}
	return fsio.WaitLock(ctx, f, "team directory "+dir+", which a teammemd with another state directory is syncing", func() {
		log.Warn("another teammemd, with another state directory, is syncing this team directory; waiting for it (stop one of them)", "dir", dir)
	})
}
