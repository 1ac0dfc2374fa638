package login

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/teammemd/teammemd/sync/fsio"
)

// ErrNotLoggedIn is returned for a server with no stored login.
var ErrNotLoggedIn = errors.New("not logged in")

// Storage says where a new login's tokens are kept.
type Storage string

const (
	// StorageAuto keeps them in the OS keyring when it answers, else in
	// the login file.
	StorageAuto Storage = "auto"
	// StorageKeyring keeps them in the OS keyring or fails.
	StorageKeyring Storage = "keyring"
	// StorageFile keeps them in the login file.
	StorageFile Storage = "file"
)

// ParseStorage reads a storage setting; "" is StorageAuto.
func ParseStorage(s string) (Storage, error) {
	switch st := Storage(s); st {
	case "":
		return StorageAuto, nil
	case StorageAuto, StorageKeyring, StorageFile:
		return st, nil
	}
	return "", fmt.Errorf("login storage %q is not one of auto, keyring, file", s)
}

// Store keeps one login file per server in Dir, each mode 0600 in a 0700
// directory, written atomically. A login whose tokens are in the OS
// keyring has a file all the same: it holds what is not secret (issuer,
// endpoints, expiry) and changes on every refresh, so every process that
// shares the login knows when to read the keyring again.
type Store struct {
	Dir string
	// Storage decides where Keep puts a new login ("" is StorageAuto); the
	// login remembers it for its refreshes.
	Storage Storage
	// Keyring is the OS keyring; nil keeps every login in its file.
	Keyring Keyring
	// Wait bounds each keyring call; 0 is DefaultKeyringWait.
	Wait time.Duration
}

// Path is the login file of server: its scheme, host and port, with any
// character other than letters, digits, '.' and '-' made '_'.
func (s Store) Path(server string) (string, error) {
	u, err := url.Parse(server)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("server URL %q has no host", server)
	}
	name := strings.Map(func(r rune) rune {
		if ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, u.Scheme+"_"+u.Host)
	return filepath.Join(s.Dir, name+".json"), nil
}

// keyringUser is the keyring item's user for server: its origin.
func keyringUser(server string) string { return Origin(server) }

// Origin is server's scheme and host, which names what is kept for it in
// the OS keyring; server itself when it does not parse.
func Origin(server string) string {
	u, err := url.Parse(server)
	if err != nil {
		return server
	}
	return u.Scheme + "://" + u.Host
}

// Load reads the login of server, or ErrNotLoggedIn.
func (s Store) Load(server string) (Record, error) {
	path, err := s.Path(server)
	if err != nil {
		return Record{}, err
	}
	return s.load(path)
}

// load reads a login file and, when its tokens are in the keyring, them.
func (s Store) load(path string) (Record, error) {
	rec, err := readFile(path)
	if err != nil || !rec.InKeyring {
		return rec, err
	}
	if err := s.fetch(&rec); err != nil {
		return Record{}, err
	}
	return rec, nil
}

// InKeyring reports whether the login to server keeps its tokens in the
// OS keyring, from its file alone.
func (s Store) InKeyring(server string) bool {
	path, err := s.Path(server)
	if err != nil {
		return false
	}
	rec, err := readFile(path)
	return err == nil && rec.InKeyring
}

// readFile reads a login file as it is.
func readFile(path string) (Record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, ErrNotLoggedIn
	}
	if err != nil {
		return Record{}, fmt.Errorf("read login: %w", err)
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return Record{}, fmt.Errorf("login file %s is not a teammemd login (%v): run teammemd login again", path, err)
	}
	if !rec.InKeyring && rec.Bearer() == "" {
		return Record{}, fmt.Errorf("login file %s holds no token: run teammemd login again", path)
	}
	return rec, nil
}

// Save writes rec as the login of rec.Server, where rec says it is kept:
// its tokens into the keyring first, then the file (a temporary file in
// the same directory, synced, renamed over the old one), so a process that
// sees the new file finds the new tokens. A refreshed login the keyring
// does not take goes into the file, unless it was made keyring-only: the
// provider may have spent the old refresh token, so dropping the new one
// would log the user out.
func (s Store) Save(rec Record) error {
	path, err := s.Path(rec.Server)
	if err != nil {
		return err
	}
	if rec.InKeyring {
		err := s.put(rec)
		switch {
		case err != nil && rec.Storage == StorageKeyring:
			return err
		case err != nil:
			rec.InKeyring = false
		default:
			rec = rec.withoutTokens()
		}
	}
	return writeFile(path, rec)
}

// writeFile writes rec to path atomically, mode 0600 in a 0700 directory.
func writeFile(path string, rec Record) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("encode login: %w", err)
	}
	if err := fsio.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	return nil
}

// Remove deletes the login of server, from the keyring too when its tokens
// are there; it reports whether there was one. When the keyring cannot
// delete them, the file stays, so that logging out again can. It holds
// the login's refresh lock, so a refresh in flight cannot save the login
// again after it is gone.
func (s Store) Remove(ctx context.Context, server string) (bool, error) {
	path, err := s.Path(server)
	if err != nil {
		return false, err
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil // nothing to remove, and no directory to lock in
	}
	release, err := lockLogin(ctx, path)
	if err != nil {
		return false, fmt.Errorf("remove login to %s: %w", server, err)
	}
	defer release()
	rec, rerr := readFile(path)
	if rerr == nil && rec.InKeyring {
		if err := s.drop(server); err != nil {
			return false, fmt.Errorf("remove the login from the OS keyring: %w", err)
		}
	}
	err = os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove login: %w", err)
	}
	return true, nil
}

// keyringCall runs f with the store's bound on keyring calls.
func (s Store) keyringCall(f func(ctx context.Context, k Keyring) error) error {
	if s.Keyring == nil {
		return errors.New("no OS keyring is configured")
	}
	wait := s.Wait
	if wait <= 0 {
		wait = DefaultKeyringWait
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return f(ctx, s.Keyring)
}

// drop deletes server's tokens from the keyring; none there is no error.
func (s Store) drop(server string) error {
	err := s.keyringCall(func(ctx context.Context, k Keyring) error {
		return k.Delete(ctx, keyringService, keyringUser(server))
	})
	if errors.Is(err, ErrKeyringNotFound) {
		return nil
	}
	return err
}
