package personal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/teammemd/teammemd/sync/fsio"
	"github.com/teammemd/teammemd/sync/login"
)

// Keys are the personal keys of one server that this machine holds.
type Keys struct {
	// Current encrypts everything written.
	Current *Key
	// Previous are the keys a rotation replaces, kept until it finishes:
	// what they sealed still opens.
	Previous []*Key
}

// All returns the current key, then the previous ones: what Open tries.
func (k Keys) All() []*Key {
	if k.Current == nil {
		return nil
	}
	return append([]*Key{k.Current}, k.Previous...)
}

// ErrNoKeys is returned by Load for a server this machine holds no
// personal key for.
var ErrNoKeys = errors.New("no personal key is stored for this server: run teammemd personal init, or teammemd personal join on a second machine")

// keyringService is the service the OS keyring keeps personal keys under;
// the item's user is the server's origin.
const keyringService = "teammemd personal key"

// KeyStore keeps each server's personal keys: in the OS keyring when it
// answers (storage auto) or when asked to (keyring), else in the server's
// file. The file exists either way, mode 0600 in a 0700 directory, written
// atomically; with the keys in the keyring it holds only where they are
// and the current key's ID, so that every process knows where to look
// without asking the keyring.
type KeyStore struct {
	dir     string
	storage string
	// Keyring is the OS keyring; nil keeps every key in its file.
	Keyring login.Keyring
	// Wait bounds each keyring call; 0 is login.DefaultKeyringWait.
	Wait time.Duration
}

// NewKeyStore returns the store of keys under dir, which puts new keys
// where storage says: "auto" (or ""), "keyring" or "file", as logins do.
// It uses the OS keyring through sync/login, with its timeouts.
func NewKeyStore(dir, storage string) *KeyStore {
	return &KeyStore{dir: dir, storage: storage, Keyring: login.OSKeyring}
}

// keyFile is what a server's file holds.
type keyFile struct {
	Server string `json:"server"`
	KeyID  string `json:"keyId"`
	// Storage is where the keys were asked to be kept.
	Storage   string `json:"storage"`
	InKeyring bool   `json:"keyring,omitempty"`
	keySecrets
}

// keySecrets are the keys' secret strings: in the file, or as the
// keyring's item.
type keySecrets struct {
	Current  string   `json:"current,omitempty"`
	Previous []string `json:"previous,omitempty"`
}

// path is server's file.
func (s *KeyStore) path(server string) (string, error) {
	return login.Store{Dir: s.dir}.Path(server)
}

// Load reads server's keys, or returns ErrNoKeys.
func (s *KeyStore) Load(ctx context.Context, server string) (Keys, error) {
	f, err := s.readFile(server)
	if err != nil {
		return Keys{}, err
	}
	sec := f.keySecrets
	if f.InKeyring {
		if sec, err = s.fetch(ctx, server); err != nil {
			return Keys{}, err
		}
	}
	keys, err := parseSecrets(sec)
	if err != nil {
		return Keys{}, fmt.Errorf("the personal key stored for %s: %w", server, err)
	}
	if keys.Current.ID() != f.KeyID {
		return Keys{}, fmt.Errorf("the personal key stored for %s is not the one its file names: run teammemd personal join", server)
	}
	return keys, nil
}

// readFile reads server's file; none is ErrNoKeys.
func (s *KeyStore) readFile(server string) (keyFile, error) {
	path, err := s.path(server)
	if err != nil {
		return keyFile{}, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return keyFile{}, ErrNoKeys
	}
	if err != nil {
		return keyFile{}, fmt.Errorf("read the personal key: %w", err)
	}
	var f keyFile
	if err := json.Unmarshal(data, &f); err != nil {
		return keyFile{}, fmt.Errorf("%s is not a teammemd personal key file (%v): run teammemd personal join", path, err)
	}
	return f, nil
}

func parseSecrets(sec keySecrets) (Keys, error) {
	if sec.Current == "" {
		return Keys{}, errors.New("no current key")
	}
	cur, err := ParseKey(sec.Current)
	if err != nil {
		return Keys{}, err
	}
	keys := Keys{Current: cur}
	for _, p := range sec.Previous {
		k, err := ParseKey(p)
		if err != nil {
			return Keys{}, err
		}
		keys.Previous = append(keys.Previous, k)
	}
	return keys, nil
}

// Save stores k as server's keys, where the store's storage says: the
// keyring first (auto: when it answers), then the file, so that a process
// that sees the new file finds the new keys.
func (s *KeyStore) Save(ctx context.Context, server string, k Keys) error {
	if k.Current == nil {
		return errors.New("save personal key: no current key")
	}
	storage, err := login.ParseStorage(s.storage)
	if err != nil {
		return fmt.Errorf("personal key storage: %w", err)
	}
	path, err := s.path(server)
	if err != nil {
		return err
	}
	old, oldErr := s.readFile(server)
	f := keyFile{Server: server, KeyID: k.Current.ID(), Storage: string(storage), keySecrets: secretsOf(k)}
	if s.Keyring != nil && storage != login.StorageFile {
		err := s.put(ctx, server, f.keySecrets)
		switch {
		case err != nil && storage == login.StorageKeyring:
			return err
		case err == nil:
			f.InKeyring, f.keySecrets = true, keySecrets{}
		}
	}
	if err := writeJSON(path, f); err != nil {
		return err
	}
	if oldErr == nil && old.InKeyring && !f.InKeyring {
		_ = s.drop(ctx, server) // the file no longer points at it
	}
	return nil
}

func secretsOf(k Keys) keySecrets {
	sec := keySecrets{Current: k.Current.String()}
	for _, p := range k.Previous {
		sec.Previous = append(sec.Previous, p.String())
	}
	return sec
}

func writeJSON(path string, f keyFile) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the personal key: %w", err)
	}
	if err := fsio.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("save the personal key: %w", err)
	}
	return nil
}

// Delete removes server's keys, from the keyring too when they are
// there; none stored is no error. When the keyring cannot delete them, the
// file stays, so that deleting again can.
func (s *KeyStore) Delete(ctx context.Context, server string) error {
	f, err := s.readFile(server)
	if errors.Is(err, ErrNoKeys) {
		return nil
	}
	if err == nil && f.InKeyring {
		if err := s.drop(ctx, server); err != nil {
			return fmt.Errorf("remove the personal key from the OS keyring: %w", err)
		}
	}
	path, err := s.path(server)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the personal key: %w", err)
	}
	return nil
}

// Stored returns the file of server's keys and whether it exists: a key
// is stored for server, in the file or in the keyring. It reads neither.
func (s *KeyStore) Stored(server string) (string, bool) {
	path, err := s.path(server)
	if err != nil {
		return "", false
	}
	_, err = os.Stat(path)
	return path, err == nil
}

// Where says where server's keys are: "keyring", or the file's path (also
// when none is stored, for a message that says where one would be).
func (s *KeyStore) Where(_ context.Context, server string) string {
	if f, err := s.readFile(server); err == nil && f.InKeyring {
		return "keyring"
	}
	path, err := s.path(server)
	if err != nil {
		return err.Error()
	}
	return path
}
