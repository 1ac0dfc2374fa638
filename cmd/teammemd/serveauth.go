package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/auth"
)

// serverAuth builds the modes [server.auth] turns on and logs them; with
// static tokens on, it hints at the first token on a database without one.
func serverAuth(ctx context.Context, sc server.Config, st backend, loc location, log *slog.Logger) (*auth.Modes, error) {
	modes, err := auth.New(sc.Auth, st, auth.Options{Bindings: st})
	if err != nil {
		return nil, err
	}
	log.Info("auth modes on", "modes", strings.Join(modes.ModeNames(), ","))
	if sc.Auth.TokensEnabled() {
		if err := hintFirstToken(ctx, st, loc, log); err != nil {
			return nil, err
		}
	}
	return modes, nil
}

// printAuthModes tells an admin which modes the config at path turns on,
// and that tokens made while static tokens are off are refused until they
// are turned back on. A config that does not load is left to the command
// that needs it.
func printAuthModes(w io.Writer, path string) {
	cfg, err := loadConfig(path)
	if err != nil {
		return
	}
	fmt.Fprintf(w, "server auth modes on: %s\n", strings.Join(cfg.Server.Auth.ModeNames(), ", "))
	if !cfg.Server.Auth.TokensEnabled() {
		fmt.Fprintln(w, "static tokens are off ([server.auth] tokens = false): the server refuses every tmd_ token until they are turned on")
	}
}
