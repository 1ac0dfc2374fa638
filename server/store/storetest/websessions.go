package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// WebSessionsOpener returns a fresh web session store for one subtest and
// arranges, with t.Cleanup, for it to be closed.
type WebSessionsOpener func(t *testing.T) store.WebSessions

// RunWebSessions runs every WebSessions conformance test, each on a fresh
// store.
func RunWebSessions(t *testing.T, open WebSessionsOpener) {
	runEach(t, open, []subtest[store.WebSessions]{
		{"PutAndRead", testWebSessionPutAndRead},
		{"Expiry", testWebSessionExpiry},
		{"Replace", testWebSessionReplace},
		{"Delete", testWebSessionDelete},
		{"ExpiredDropped", testWebSessionExpiredDropped},
	})
}

func webSession(id string, created, expires int) store.WebSession {
	return store.WebSession{IDHash: "hash-" + id, Data: []byte(`{"id":"` + id + `"}`), Created: at(created), Expires: at(expires)}
}

func putWebSession(t *testing.T, s store.WebSessions, ws store.WebSession) {
	t.Helper()
	if err := s.PutWebSession(context.Background(), ws); err != nil {
		t.Fatalf("PutWebSession(%s) = %v", ws.IDHash, err)
	}
}

func testWebSessionPutAndRead(t *testing.T, s store.WebSessions) {
	want := webSession("a", 0, 100)
	putWebSession(t, s, want)
	got, err := s.WebSession(context.Background(), want.IDHash, at(50))
	if err != nil {
		t.Fatalf("WebSession() = %v", err)
	}
	if string(got.Data) != string(want.Data) || !got.Created.Equal(want.Created) || !got.Expires.Equal(want.Expires) {
		t.Errorf("WebSession() = %+v, want %+v", got, want)
	}
	if _, err := s.WebSession(context.Background(), "hash-none", at(50)); !errors.Is(err, store.ErrWebSessionNotFound) {
		t.Errorf("WebSession(unknown) = %v, want ErrWebSessionNotFound", err)
	}
}

func testWebSessionExpiry(t *testing.T, s store.WebSessions) {
	ws := webSession("a", 0, 100)
	putWebSession(t, s, ws)
	for _, now := range []time.Time{at(100), at(101)} {
		if _, err := s.WebSession(context.Background(), ws.IDHash, now); !errors.Is(err, store.ErrWebSessionNotFound) {
			t.Errorf("WebSession(at %v) = %v, want ErrWebSessionNotFound", now, err)
		}
	}
}

func testWebSessionReplace(t *testing.T, s store.WebSessions) {
	putWebSession(t, s, webSession("a", 0, 100))
	next := webSession("a", 10, 200)
	next.Data = []byte(`{"signedIn":true}`)
	putWebSession(t, s, next)
	got, err := s.WebSession(context.Background(), next.IDHash, at(150))
	if err != nil || string(got.Data) != string(next.Data) {
		t.Errorf("WebSession() = %q, %v, want %q", got.Data, err, next.Data)
	}
}

func testWebSessionDelete(t *testing.T, s store.WebSessions) {
	ws := webSession("a", 0, 100)
	putWebSession(t, s, ws)
	for range 2 {
		if err := s.DeleteWebSession(context.Background(), ws.IDHash); err != nil {
			t.Fatalf("DeleteWebSession() = %v", err)
		}
	}
	if _, err := s.WebSession(context.Background(), ws.IDHash, at(1)); !errors.Is(err, store.ErrWebSessionNotFound) {
		t.Errorf("WebSession(deleted) = %v, want ErrWebSessionNotFound", err)
	}
}

// testWebSessionExpiredDropped checks that a put drops the sessions
// expired by its time, so the table never grows with abandoned sign-ins:
// read at a time before their expiry, they are gone all the same.
func testWebSessionExpiredDropped(t *testing.T, s store.WebSessions) {
	old := webSession("old", 0, 10)
	putWebSession(t, s, old)
	putWebSession(t, s, webSession("new", 20, 100))
	if _, err := s.WebSession(context.Background(), old.IDHash, at(5)); !errors.Is(err, store.ErrWebSessionNotFound) {
		t.Errorf("WebSession(expired before a later put) = %v, want ErrWebSessionNotFound", err)
	}
}
