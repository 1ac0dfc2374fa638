package memsync

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/teammemd/teammemd/internal/savetrace"
	"github.com/teammemd/teammemd/server/api"

	"github.com/teammemd/teammemd/sync/fsio"
)

// The engine's runs: Sync, Pull and Push each take the locks, load the
// state, open the team directory and run one operation in a session, and
// save the state whatever its outcome (run).

// Sync pulls then pushes, once.
func (e *Engine) Sync(ctx context.Context) (Report, error) {
	return e.run(ctx, func(s *session) error {
		if err := s.pull(ctx); err != nil {
			return err
		}
		return s.push(ctx)
	})
}

// Pull brings the server's changes into the team directory.
func (e *Engine) Pull(ctx context.Context) (Report, error) {
	return e.run(ctx, func(s *session) error { return s.pull(ctx) })
}

// PullChanged pulls as Pull does, taking h, the repo's hashes as a change
// wait answered them, as a hint: it asks the server for the values of the
// keys h shows changed alone. What it gets is checked against what the
// engine knows, so a stale hint costs only a second, whole pull.
func (e *Engine) PullChanged(ctx context.Context, h api.HashesResponse) (Report, error) {
	return e.run(ctx, func(s *session) error {
		s.hint = &h
		err := s.pull(ctx)
		if err == nil {
			s.chain.noteAnswer(h)
		}
		return err
	})
}

// Push sends local changes to the server.
func (e *Engine) Push(ctx context.Context) (Report, error) {
	return e.run(ctx, func(s *session) error { return s.push(ctx) })
}

// run takes the locks, loads the state, opens the team directory, runs op
// and saves the state whatever op's outcome.
func (e *Engine) run(ctx context.Context, op func(*session) error) (rep Report, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	lock, err := fsio.AcquireLock(ctx, e.lockPath)
	if err != nil {
		return rep, err
	}
	defer lock.Release()
	st, aside, err := e.state.load(e.cfg.Repo, e.remote.Host(), e.now())
	if err != nil {
		return rep, err
	}
	if aside != "" {
		e.log.Warn("state file was corrupt; moved aside, doing a full resync", "movedTo", aside)
	}
	td, err := e.openDir(st)
	if err != nil {
		return rep, err
	}
	defer td.close()
	dirLock, err := lockTeamDir(ctx, e.cfg.Dir, e.log)
	if err != nil {
		return rep, err
	}
	defer dirLock.Release()
	s := &session{Engine: e, st: st, td: td, rep: &rep, tracked: e.track.take(), memo: e.state.memo()}
	savetrace.Mark("session.open", "")
	err = s.prepareDir()
	if err == nil {
		err = op(s)
	}
	e.scrubState(st)
	rep.Review = reviewNotes(st)
	rep.PullAgain = st.PullAgain
	serr := e.state.save(st)
	savetrace.Mark("state.saved", "")
	if serr != nil {
		// The state on disk still has the old checksum: keep it, so that
		// the change wait sees the repo as not yet pulled.
		e.showReport(&rep)
		rep.sort()
		return rep, e.shownErr(cmp.Or(err, serr))
	}
	e.keepScan(s)
	e.synced.Store(e.state.saved())
	chain := s.chain
	e.lastChain.Store(&chain)
	e.setChecksum(st.LastKnownChecksum)
	e.storeID.Store(&st.StoreID)
	rep.Checksum = st.LastKnownChecksum
	e.showReport(&rep)
	rep.sort()
	return rep, e.shownErr(err)
}

// openDir opens the team directory, creating it on a first sync. A repo
// that synced files from it before gets a *DirMissingError instead: the
// directory may be on its way back (moved aside, a checkout switching), and
// nothing should happen to the server or the disk meanwhile.
func (e *Engine) openDir(st *State) (*teamDir, error) {
	fi, err := os.Stat(e.cfg.Dir)
	switch {
	case err == nil && !fi.IsDir() && len(st.Base) > 0:
		return nil, &DirMissingError{Dir: e.cfg.Dir, Synced: len(st.Base), NotDir: true}
	case errors.Is(err, fs.ErrNotExist) && len(st.Base) > 0:
		return nil, &DirMissingError{Dir: e.cfg.Dir, Synced: len(st.Base)}
	case errors.Is(err, fs.ErrNotExist):
		if err := createTeamDir(e.cfg.Dir); err != nil {
			return nil, err
		}
	}
	return e.openTeamDir()
}

// openTeamDir opens the engine's directory, which must exist, with the
// personal lane's filter when it syncs one.
func (e *Engine) openTeamDir() (*teamDir, error) {
	td, err := openTeamDir(e.cfg.Dir)
	if err == nil {
		if e.cfg.Lane != "" {
			td.lane = &e.cfg.LaneFiles
		}
	}
	return td, err
}

// keepScan records, once s's state is saved, what its scans found and
// which of the watcher's notes they took in.
func (e *Engine) keepScan(s *session) {
	if !s.scannedWhole && !s.scannedNamed {
		return
	}
	e.state.keepMemo(s.memo)
	e.track.scanned(s.tracked, s.scannedWhole)
}
