package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/teammemd/teammemd/scan"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/personal"
)

// laneKeyStore is where this machine keeps each server's personal
// key: the OS keyring, or a 0600 file per server under the config
// directory; every file names where its key is, so that readers need no
// storage setting.
func laneKeyStore() *personal.KeyStore { return personalKeyStore("") }

// laneKeyDir holds the personal key store's files.
func laneKeyDir() string { return filepath.Join(configDir(), "personal") }

// keyDirCheck is how often the daemon looks at the personal key store for
// a key stored, replaced or removed.
const keyDirCheck = 5 * time.Second

// watchPersonalKeys calls changed whenever the files in dir change, checking
// every interval until ctx is done: a key that teammemd personal init or
// join stores starts the lanes of its server without a reload.
func watchPersonalKeys(ctx context.Context, dir string, every time.Duration, changed func()) error {
	seen := dirDigest(dir)
	return onTick(ctx, every, func() {
		if cur := dirDigest(dir); cur != seen {
			seen = cur
			changed()
		}
	})
}

// dirDigest names the files in dir with their sizes and times, "" when it
// cannot be read.
func dirDigest(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", e.Name(), fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
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
// its transport holds the lane's change waits. The secret scan runs on
// the lane as on a team repo, before anything is sealed: the server
// cannot scan ciphertext.
func openLane(ctx context.Context, s daemon.Spec, c *memsync.Client, keys *personal.KeyStore, sc *scan.Scanner, stateDir string, log *slog.Logger) (daemon.Engine, daemon.Waiter, error) {
	k, err := keys.Load(ctx, s.Server)
	if err != nil {
		return nil, nil, err
	}
	eng, tr, err := personal.OpenLane(laneConfig(s, stateDir), k, c, memsync.Options{Logger: log, Scanner: sc})
	if err != nil {
		return nil, nil, err
	}
	return eng, tr, nil
}

// laneConfig is the engine config of personal lane s: a project's memory
// directory, or the user-level files of Claude Code's config directory.
func laneConfig(s daemon.Spec, stateDir string) personal.LaneConfig {
	files := memsync.ProjectMemory
	if s.Repo == personal.UserProject {
		files = memsync.UserFiles
	}
	return personal.LaneConfig{Dir: s.Dir, Project: s.Repo, Files: files, Server: s.Server, StateDir: stateDir}
}
