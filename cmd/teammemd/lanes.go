package main

import (
	"context"
	"log/slog"
	"path/filepath"

	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/personal"
)

// laneKeyStore is where this machine keeps each server's personal
// key: the OS keyring, or a 0600 file per server under the config
// directory; every file names where its key is, so that readers need no
// storage setting.
func laneKeyStore() *personal.KeyStore {
	return personal.NewKeyStore(filepath.Join(configDir(), "personal"), "")
}

// personalLanes says which personal lanes the daemon runs: none when
// [personal] enabled is false or Claude Code's config directory is not
// known; else one beside each Claude Code project's team repo whose
// server this machine holds a key of, and the user-level files' with
// [personal] user_files.
func personalLanes(f runFlags, cfg Config) daemon.Personal {
	home, err := claude.Home()
	if !cfg.Personal.On() || err != nil {
		return daemon.Personal{}
	}
	client := f.client.resolve(cfg.Client)
	return daemon.Personal{KeyFile: laneKeyStore().Stored, Home: home,
		UserFiles: cfg.Personal.UserFiles, UserServer: client.Server, UserTokenFile: client.TokenFile}
}

// openLane opens the engine of personal lane s with its server's keys;
// its transport holds the lane's change waits. sc scans each note before
// it is sealed: the server cannot scan ciphertext.
func openLane(ctx context.Context, s daemon.Spec, c *memsync.Client, keys *personal.KeyStore, stateDir string, sc memsync.SecretScanner, log *slog.Logger) (daemon.Engine, daemon.Waiter, error) {
	k, err := keys.Load(ctx, s.Server)
	if err != nil {
		return nil, nil, err
	}
	files := memsync.ProjectMemory
	if s.Repo == personal.UserProject {
		files = memsync.UserFiles
	}
	cfg := personal.LaneConfig{Dir: s.Dir, Project: s.Repo, Files: files, Server: s.Server, StateDir: stateDir}
	eng, tr, err := personal.OpenLane(cfg, k, c, memsync.Options{Logger: log, Scanner: sc})
	if err != nil {
		return nil, nil, err
	}
	return eng, tr, nil
}
