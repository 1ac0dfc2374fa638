// Package personaltest sets up the personal lane (PROTOCOL.md section 16)
// on a real server for tests: a subject's key, its rotation on "another
// machine", and what the server holds of a lane.
package personaltest

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/personal"
)

// envelope stands for a wrapped key: the server keeps it as it is.
const envelope = "-----BEGIN AGE ENCRYPTED FILE-----\ntest\n-----END AGE ENCRYPTED FILE-----\n"

// client is a client of the server at url with token; opts are the
// caller's (a transport, say).
func client(t testing.TB, url, token string, opts []memsync.ClientOption) *memsync.Client {
	t.Helper()
	c, err := memsync.NewClient(url, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Init stores k as the personal key of token's subject on the server at
// url, as teammemd personal init does. Each function here takes the
// options of the client it sends with last.
func Init(t testing.TB, url, token string, k *personal.Key, opts ...memsync.ClientOption) {
	t.Helper()
	env := api.KeyEnvelope{KeyID: k.ID(), Envelope: envelope}
	if _, err := client(t, url, token, opts).PutPersonalKey(context.Background(), env, ""); err != nil {
		t.Fatalf("personaltest: init: %v", err)
	}
}

// Rotate replaces the subject's key old by k, as a rotation on another
// machine does; the lanes stay as they are.
func Rotate(t testing.TB, url, token string, old, k *personal.Key, opts ...memsync.ClientOption) {
	t.Helper()
	env := api.KeyEnvelope{KeyID: k.ID(), Envelope: envelope}
	if _, err := client(t, url, token, opts).PutPersonalKey(context.Background(), env, old.ID()); err != nil {
		t.Fatalf("personaltest: rotate: %v", err)
	}
}

// Entries returns the wire keys and values the server holds of lane,
// none for a lane never written.
func Entries(t testing.TB, url, token, lane string, k *personal.Key, opts ...memsync.ClientOption) map[string]string {
	t.Helper()
	full, _, err := client(t, url, token, opts).PersonalGet(context.Background(), lane, k.ID(), "")
	var ae *api.Error
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return map[string]string{}
	}
	if err != nil {
		t.Fatalf("personaltest: pull lane %s: %v", lane, err)
	}
	return full.Content.Entries
}
