package main

import (
	"cmp"
	"fmt"
	"io"
	"os"

	"github.com/teammemd/teammemd/sync/claude/route"
)

// checkPersonalRoute keeps Claude Code's own private memory sync off when
// this machine has the personal lane on for the server setup configures:
// the two would fight over memory/. A client that would sync it itself
// needs the user's consent to turning its traffic off. With [personal]
// enabled = false the daemon runs no personal lane, and there is nothing
// to keep off.
func checkPersonalRoute(f setupFlags, client route.Client, choice route.Choice, w io.Writer) error {
	cfg := setupConfig(f)
	server := setupServer(f, cfg)
	if !cfg.Personal.On() || server == "" || !personalKeyStored(server) {
		return nil
	}
	msg, err := route.CheckPersonal(client, choice)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintln(w, msg)
	return nil
}

// setupConfig is the config setup adds to; one that does not load counts
// as the defaults here, and the install that follows refuses it and says
// why.
func setupConfig(f setupFlags) Config {
	cfg, err := loadConfig(f.Config)
	if err != nil {
		return Config{}
	}
	return cfg
}

// setupServer is the server setup configures: --server, else
// $TEAMMEMD_SERVER, else the config's.
func setupServer(f setupFlags, cfg Config) string {
	return cmp.Or(f.Server, os.Getenv(envServer), cfg.Client.Server)
}

// personalKeyStored reports whether this machine keeps a personal key for
// server, without asking the OS keyring for it.
func personalKeyStored(server string) bool {
	_, ok := personalKeyStore("").Stored(server)
	return ok
}
