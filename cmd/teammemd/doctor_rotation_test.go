package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
	"github.com/teammemd/teammemd/sync/daemon"
	"github.com/teammemd/teammemd/sync/daemon/control"
	"github.com/teammemd/teammemd/sync/login"
	"github.com/teammemd/teammemd/sync/personal"
)

// A rotation begun here and cut short once the server names the new key
// (this machine still holds the old one to re-encrypt its lanes with) is
// unfinished, as teammemd personal status says: doctor fails its server
// key check with the command that finishes it.
func TestDoctorUnfinishedRotation(t *testing.T) {
	c := newDoctorCase(t)
	c.claude = claudetest.FakeClient(t, "2.1.328", "api_key")
	old, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	cur, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := personalKeyStore(login.StorageFile).Save(context.Background(), c.srv.URL,
		personal.Keys{Current: cur, Previous: []*personal.Key{old}}); err != nil {
		t.Fatal(err)
	}
	nameServerKey(t, c, cur.ID(), "")
	out, code := c.run(t)
	for _, want := range []string{"a rotation of the personal key begun here is unfinished", "fix: run teammemd personal rotate-key to finish it"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor mid-rotation lacks %q:\n%s", want, out)
		}
	}
	if code != exitFailure {
		t.Errorf("doctor exit %d, want 1", code)
	}
}

// Doctor's daemon line tells a project's personal lane from its team
// repo, which share the slug.
func TestDoctorNamesPersonalLanes(t *testing.T) {
	c := newDoctorCase(t)
	ln, err := control.Listen(c.socket(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	st := daemon.Status{PID: 4242, Version: "test", Started: time.Now(), Repos: []daemon.RepoStatus{
		{Repo: "acme/app", Lane: daemon.LaneTeam, State: daemon.StateIdle},
		{Repo: "acme/app", Lane: daemon.LanePersonal, State: daemon.StateHeld},
	}}
	go func() { done <- control.Serve(ctx, ln, func() any { return st }, slog.New(slog.DiscardHandler)) }()
	t.Cleanup(func() { cancel(); <-done })
	out, _ := c.run(t)
	if !strings.Contains(out, "acme/app idle, acme/app (personal lane) held") {
		t.Errorf("doctor's daemon line does not tell the lanes apart:\n%s", out)
	}
}

// nameServerKey has the case's server name keyID as the personal key,
// wrapped in a stand-in envelope, in place of ifMatch ("" for none).
func nameServerKey(t *testing.T, c *doctorCase, keyID, ifMatch string) {
	t.Helper()
	client, err := memsync.NewClient(c.srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: c.srv.Token}))
	if err != nil {
		t.Fatal(err)
	}
	stand := "-----BEGIN AGE ENCRYPTED FILE-----\nc3RhbmQtaW4=\n-----END AGE ENCRYPTED FILE-----\n"
	if _, err := client.PutPersonalKey(context.Background(), api.KeyEnvelope{KeyID: keyID, Envelope: stand}, ifMatch); err != nil {
		t.Fatal(err)
	}
}
