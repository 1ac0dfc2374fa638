package main

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
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
	client, err := memsync.NewClient(c.srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: c.srv.Token}))
	if err != nil {
		t.Fatal(err)
	}
	stand := "-----BEGIN AGE ENCRYPTED FILE-----\nc3RhbmQtaW4=\n-----END AGE ENCRYPTED FILE-----\n"
	if _, err := client.PutPersonalKey(context.Background(), api.KeyEnvelope{KeyID: cur.ID(), Envelope: stand}, ""); err != nil {
		t.Fatal(err)
	}
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
