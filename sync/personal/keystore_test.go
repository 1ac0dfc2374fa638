package personal_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/sync/login"
	"github.com/teammemd/teammemd/sync/login/logintest"
	"github.com/teammemd/teammemd/sync/personal"
)

// memKeyring is a keyring in memory; broken makes every call fail as a
// locked keyring's does.
type memKeyring struct {
	mu     sync.Mutex
	items  map[string]string
	broken bool
}

func (k *memKeyring) Get(_ context.Context, service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.broken {
		return "", login.ErrKeyringBusy
	}
	v, ok := k.items[service+"\x00"+user]
	if !ok {
		return "", login.ErrKeyringNotFound
	}
	return v, nil
}

func (k *memKeyring) Set(_ context.Context, service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.broken {
		return login.ErrKeyringBusy
	}
	if k.items == nil {
		k.items = map[string]string{}
	}
	k.items[service+"\x00"+user] = secret
	return nil
}

func (k *memKeyring) Delete(_ context.Context, service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.broken {
		return login.ErrKeyringBusy
	}
	delete(k.items, service+"\x00"+user)
	return nil
}

const server = "https://memory.example.com"

func twoKeys(t *testing.T) personal.Keys {
	t.Helper()
	cur, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	prev, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return personal.Keys{Current: cur, Previous: []*personal.Key{prev}}
}

func sameKeys(got, want personal.Keys) bool {
	if got.Current == nil || got.Current.ID() != want.Current.ID() || len(got.Previous) != len(want.Previous) {
		return false
	}
	for i := range got.Previous {
		if got.Previous[i].ID() != want.Previous[i].ID() {
			return false
		}
	}
	return true
}

// fileHolds reports whether the store's only file holds s.
func fileHolds(t *testing.T, dir, s string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("files in %s = %v, %v, want one", dir, files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(files[0])
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v, %v, want 0600", fi.Mode(), err)
	}
	return strings.Contains(string(data), s)
}

func TestKeyStoreFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := personal.NewKeyStore(dir, "file")
	if _, err := s.Load(ctx, server); !errors.Is(err, personal.ErrNoKeys) {
		t.Fatalf("Load() before Save = %v, want ErrNoKeys", err)
	}
	want := twoKeys(t)
	if err := s.Save(ctx, server, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, server)
	if err != nil || !sameKeys(got, want) {
		t.Fatalf("Load() = %v, %v, want the saved keys", got, err)
	}
	if !fileHolds(t, dir, want.Current.String()) {
		t.Error("the key file does not hold the key")
	}
	if w := s.Where(ctx, server); !strings.HasPrefix(w, dir) {
		t.Errorf("Where() = %q, want a file in %s", w, dir)
	}
	if err := s.Delete(ctx, server); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, server); !errors.Is(err, personal.ErrNoKeys) {
		t.Errorf("Load() after Delete = %v, want ErrNoKeys", err)
	}
	if err := s.Delete(ctx, server); err != nil {
		t.Errorf("Delete() of nothing = %v", err)
	}
}

// TestKeyStoreKeyring keeps the keys in the keyring: the file names only
// the key ID, and a switch to file storage takes them out of the keyring.
func TestKeyStoreKeyring(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	k := &memKeyring{}
	s := personal.NewKeyStore(dir, "auto")
	s.Keyring = k
	want := twoKeys(t)
	if err := s.Save(ctx, server, want); err != nil {
		t.Fatal(err)
	}
	if fileHolds(t, dir, "AGE-SECRET-KEY") {
		t.Error("the key file holds a key, want it only in the keyring")
	}
	if w := s.Where(ctx, server); w != "keyring" {
		t.Errorf("Where() = %q, want keyring", w)
	}
	got, err := s.Load(ctx, server)
	if err != nil || !sameKeys(got, want) {
		t.Fatalf("Load() = %v, %v, want the saved keys", got, err)
	}
	fs := personal.NewKeyStore(dir, "file")
	fs.Keyring = k
	if err := fs.Save(ctx, server, personal.Keys{Current: want.Current}); err != nil {
		t.Fatal(err)
	}
	if len(k.items) != 0 {
		t.Errorf("keyring after a save to the file holds %d items, want none", len(k.items))
	}
	k.items = nil
	if err := s.Save(ctx, server, want); err != nil {
		t.Fatal(err)
	}
	k.items = nil
	if _, err := s.Load(ctx, server); !errors.Is(err, personal.ErrNoKeys) {
		t.Errorf("Load() with the keyring item gone = %v, want ErrNoKeys", err)
	}
}

// TestKeyStoreKeyringFails: auto falls back to the file when the keyring
// does not answer; keyring storage fails and writes nothing.
func TestKeyStoreKeyringFails(t *testing.T) {
	ctx := context.Background()
	want := twoKeys(t)
	dir := t.TempDir()
	strict := personal.NewKeyStore(dir, "keyring")
	strict.Keyring = &memKeyring{broken: true}
	if err := strict.Save(ctx, server, want); err == nil {
		t.Fatal("Save(keyring) with a locked keyring = nil, want an error")
	}
	if _, err := strict.Load(ctx, server); !errors.Is(err, personal.ErrNoKeys) {
		t.Errorf("Load() after a failed Save = %v, want ErrNoKeys", err)
	}
	auto := personal.NewKeyStore(dir, "")
	auto.Keyring = &memKeyring{broken: true}
	if err := auto.Save(ctx, server, want); err != nil {
		t.Fatal(err)
	}
	if got, err := auto.Load(ctx, server); err != nil || !sameKeys(got, want) {
		t.Errorf("Load() = %v, %v, want the keys from the file", got, err)
	}
	bad := personal.NewKeyStore(dir, "vault")
	if err := bad.Save(ctx, server, want); err == nil {
		t.Error("Save() with storage vault = nil, want an error")
	}
}

func TestKeyStoreCorrupt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := personal.NewKeyStore(dir, "file")
	if err := s.Save(ctx, server, twoKeys(t)); err != nil {
		t.Fatal(err)
	}
	path := s.Where(ctx, server)
	for _, body := range []string{"{", `{"server":"x","keyId":"00","current":"nope"}`, `{"keyId":"00"}`} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Load(ctx, server); err == nil || errors.Is(err, personal.ErrNoKeys) {
			t.Errorf("Load() of %q = %v, want an error that is not ErrNoKeys", body, err)
		}
	}
}

// TestKeyStoreOSKeyring keeps keys in the machine's OS keyring, when the
// test may use it.
func TestKeyStoreOSKeyring(t *testing.T) {
	k := logintest.Keyring(t)
	ctx := context.Background()
	srv := logintest.Server()
	s := personal.NewKeyStore(t.TempDir(), "keyring")
	s.Keyring = k
	want := twoKeys(t)
	if err := s.Save(ctx, srv, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, srv)
	if err != nil || !sameKeys(got, want) {
		t.Errorf("Load() = %v, %v, want the saved keys", got, err)
	}
	if err := s.Delete(ctx, srv); err != nil {
		t.Fatal(err)
	}
}
