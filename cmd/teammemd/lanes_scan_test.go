package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/daemon"
)

// The daemon's personal lane scans each note before it seals it: the
// server cannot scan ciphertext, so a note with a secret stays here.
func TestPersonalLaneScansBeforeSealing(t *testing.T) {
	srv := servertest.Start(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv(envToken, srv.Token)
	ctx := context.Background()
	k := storePersonalKey(t, srv.URL)
	c, err := memsync.NewClient(srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: srv.Token}))
	if err != nil {
		t.Fatal(err)
	}
	stand := "-----BEGIN AGE ENCRYPTED FILE-----\nc3RhbmQtaW4=\n-----END AGE ENCRYPTED FILE-----\n"
	if _, err := c.PutPersonalKey(ctx, api.KeyEnvelope{KeyID: k.ID(), Envelope: stand}, ""); err != nil {
		t.Fatal(err)
	}
	memory := filepath.Join(t.TempDir(), "-src-app", "memory")
	if err := os.MkdirAll(memory, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(memory, "ok.md"), "---\nname: ok\ndescription: fine\ntype: user\n---\nfine\n", 0o600)
	writeFile(t, filepath.Join(memory, "aws.md"), "aws_access_key_id = "+"AKIA"+"Z7QW3RTY5UIO2PLK\n", 0o600)

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sc, err := scan.New(scan.Config{}, scan.WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	var rules tokenRules
	rules.set(newTokenRule(clientFlags{}, memsync.ClientConfig{}))
	open := engineOpener(t.TempDir(), false, sc, &rules, laneKeyStore(), log)
	eng, _, err := open(ctx, daemon.Spec{Repo: "acme/app", Dir: memory, Server: srv.URL, Lane: daemon.LanePersonal})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eng.Push(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Blocked) != 1 || rep.Blocked[0].Key != "aws.md" {
		t.Errorf("the push blocked %+v, want aws.md", rep.Blocked)
	}
	lanes, err := c.PersonalLanes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lanes.Quota.UsedEntries != 1 {
		t.Errorf("the server holds %d personal entries, want ok.md alone", lanes.Quota.UsedEntries)
	}
}
