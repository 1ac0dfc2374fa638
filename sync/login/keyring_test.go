package login_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/sync/login"
	"github.com/teammemd/teammemd/sync/login/logintest"
)

// fileHolds reports whether the login file of server holds any of secrets.
func fileHolds(t *testing.T, s login.Store, server string, secrets ...string) bool {
	t.Helper()
	path, err := s.Path(server)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range secrets {
		if strings.Contains(string(data), sec) {
			return true
		}
	}
	return false
}

// TestKeyringKeepLoadRemove keeps a login in the OS keyring: its file
// holds no token, Load gives the whole login back, and Remove deletes it
// from the keyring too.
func TestKeyringKeepLoadRemove(t *testing.T) {
	k := logintest.Keyring(t)
	server := logintest.Server()
	s := login.Store{Dir: t.TempDir(), Keyring: k}
	rec := login.Record{Server: server, AccessToken: "access-" + server, IDToken: "id-" + server,
		RefreshToken: "refresh-" + server, Expiry: time.Unix(2e9, 0).UTC(), Who: "alice@acme.com"}
	w, err := s.Keep(context.Background(), rec)
	if err != nil || !w.Keyring || w.Fallback != nil {
		t.Fatalf("Keep() = %+v, %v, want it in the keyring", w, err)
	}
	if fileHolds(t, s, server, rec.AccessToken, rec.IDToken, rec.RefreshToken) {
		t.Error("the login file holds a token, want them only in the keyring")
	}
	got, err := s.Load(server)
	rec.InKeyring, rec.Storage = true, login.StorageAuto
	if err != nil || got != rec {
		t.Errorf("Load() = %+v, %v, want %+v", got, err, rec)
	}
	if removed, err := s.Remove(context.Background(), server); !removed || err != nil {
		t.Errorf("Remove() = %v, %v, want true, nil", removed, err)
	}
	ctx := context.Background()
	if _, err := k.Get(ctx, "teammemd", strings.TrimSuffix(server, "/")); !errors.Is(err, login.ErrKeyringNotFound) {
		t.Errorf("keyring after Remove: %v, want the login gone", err)
	}
}

// TestKeyringToFileDropsOldTokens logs in again with file storage over a
// login kept in the keyring: the keyring no longer holds the old tokens.
func TestKeyringToFileDropsOldTokens(t *testing.T) {
	k := logintest.Keyring(t)
	server := logintest.Server()
	dir := t.TempDir()
	rec := login.Record{Server: server, IDToken: "id-1", RefreshToken: "refresh-1"}
	if _, err := (login.Store{Dir: dir, Keyring: k}).Keep(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	rec.IDToken = "id-2"
	if w, err := (login.Store{Dir: dir, Keyring: k, Storage: login.StorageFile}).Keep(context.Background(), rec); err != nil || w.Keyring {
		t.Fatalf("Keep(file) = %+v, %v, want it in the file", w, err)
	}
	if _, err := k.Get(context.Background(), "teammemd", server); !errors.Is(err, login.ErrKeyringNotFound) {
		t.Errorf("keyring after moving the login to its file: %v, want the old tokens gone", err)
	}
	got, err := (login.Store{Dir: dir, Keyring: k}).Load(server)
	if err != nil || got.IDToken != "id-2" || got.InKeyring {
		t.Errorf("Load() = %+v, %v, want the new login from the file", got, err)
	}
}

// TestKeyringSharedRefresh is TestConcurrentRefresh with the login kept
// in the OS keyring: the others read the refreshed tokens through the
// changed file, and the file never holds a token.
func TestKeyringSharedRefresh(t *testing.T) {
	k := logintest.Keyring(t)
	s := login.Store{Dir: t.TempDir(), Keyring: k, Storage: login.StorageKeyring}
	tok, old := refreshTogether(t, s, logintest.Server())
	if fileHolds(t, s, old.Server, tok, old.RefreshToken) {
		t.Error("the login file holds a token after the refresh, want them only in the keyring")
	}
}
