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
// needs the user's consent to turning its traffic off.
func checkPersonalRoute(f setupFlags, client route.Client, choice route.Choice, w io.Writer) error {
	server := setupServer(f)
	if server == "" || !personalKeyStored(server) {
		return nil
	}
	msg, err := route.CheckPersonal(client, choice)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintln(w, msg)
	return nil
}

// setupServer is the server setup configures: --server, else
// $TEAMMEMD_SERVER, else the config's.
func setupServer(f setupFlags) string {
	if s := cmp.Or(f.Server, os.Getenv(envServer)); s != "" {
		return s
	}
	cfg, err := loadConfig(f.Config)
	if err != nil {
		return ""
	}
	return cfg.Client.Server
}

// personalKeyStored reports whether this machine keeps a personal key for
// server, without asking the OS keyring for it.
func personalKeyStored(server string) bool {
	_, ok := personalKeyStore("").Stored(server)
	return ok
}
