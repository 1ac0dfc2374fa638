package login

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// secrets is what a login keeps in the OS keyring: its tokens and their
// expiry, written and read as one item, so a reader never pairs one
// refresh's access token with another's expiry.
type secrets struct {
	AccessToken  string    `json:"access_token"`
	IDToken      string    `json:"id_token,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry"`
}

// withoutTokens is rec as its file holds it when the keyring has its tokens.
func (r Record) withoutTokens() Record {
	r.AccessToken, r.IDToken, r.RefreshToken = "", "", ""
	return r
}

// put writes rec's tokens to the keyring.
func (s Store) put(rec Record) error {
	data, err := json.Marshal(secrets{rec.AccessToken, rec.IDToken, rec.RefreshToken, rec.Expiry})
	if err != nil {
		return fmt.Errorf("encode login: %w", err)
	}
	err = s.keyringCall(func(ctx context.Context, k Keyring) error {
		return k.Set(ctx, keyringService, keyringUser(rec.Server), string(data))
	})
	if err != nil {
		return fmt.Errorf("keep the login in the OS keyring: %w", err)
	}
	return nil
}

// fetch fills rec's tokens and expiry from the keyring.
func (s Store) fetch(rec *Record) error {
	var data string
	err := s.keyringCall(func(ctx context.Context, k Keyring) error {
		var err error
		data, err = k.Get(ctx, keyringService, keyringUser(rec.Server))
		return err
	})
	if errors.Is(err, ErrKeyringNotFound) {
		return fmt.Errorf("%w: the login to %s is gone from the OS keyring: run teammemd login --server %s", ErrNotLoggedIn, rec.Server, rec.Server)
	}
	if err != nil {
		return fmt.Errorf("read the login to %s from the OS keyring: %w", rec.Server, err)
	}
	var sec secrets
	if err := json.Unmarshal([]byte(data), &sec); err != nil || (Record{AccessToken: sec.AccessToken, IDToken: sec.IDToken}).Bearer() == "" {
		return fmt.Errorf("the OS keyring's login to %s is not a teammemd login: run teammemd login --server %s", rec.Server, rec.Server)
	}
	rec.AccessToken, rec.IDToken, rec.RefreshToken, rec.Expiry = sec.AccessToken, sec.IDToken, sec.RefreshToken, sec.Expiry
	return nil
}

// Where says where Keep put a login.
type Where struct {
	// Keyring: the tokens are in the OS keyring, the file holds the rest.
	Keyring bool
	// Path is the login file.
	Path string
	// Fallback is why an auto store kept the tokens in the file.
	Fallback error
}

// Keep saves a new login where the store's Storage says: in the keyring
// (auto: when it answers), else in the file. A login it replaces that had
// its tokens in the keyring loses them there when the new one does not.
// It holds the login's refresh lock, so a refresh in flight cannot save
// the old login over the new one.
func (s Store) Keep(ctx context.Context, rec Record) (Where, error) {
	path, err := s.Path(rec.Server)
	if err != nil {
		return Where{}, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return Where{}, fmt.Errorf("save login to %s: %w", rec.Server, err)
	}
	release, err := lockLogin(ctx, path)
	if err != nil {
		return Where{}, fmt.Errorf("save login to %s: %w", rec.Server, err)
	}
	defer release()
	w := Where{Path: path}
	old, oldErr := readFile(path)
	rec.Storage = cmp.Or(s.Storage, StorageAuto)
	rec.InKeyring = s.Keyring != nil && rec.Storage != StorageFile
	if rec.InKeyring {
		err := s.put(rec)
		switch {
		case err != nil && rec.Storage == StorageKeyring:
			return w, err
		case err != nil:
			rec.InKeyring, w.Fallback = false, err
		default:
			w.Keyring = true
			rec = rec.withoutTokens()
		}
	}
	if err := writeFile(path, rec); err != nil {
		return w, err
	}
	if oldErr == nil && old.InKeyring && !rec.InKeyring {
		_ = s.drop(rec.Server) // the file no longer points at it
	}
	return w, nil
}

// CheckKeyring asks the keyring for server's login, to learn before a
// login whether the keyring answers at all.
func (s Store) CheckKeyring(server string) error {
	err := s.keyringCall(func(ctx context.Context, k Keyring) error {
		_, err := k.Get(ctx, keyringService, keyringUser(server))
		return err
	})
	if err != nil && !errors.Is(err, ErrKeyringNotFound) {
		return fmt.Errorf("the login is to be kept in the OS keyring, which does not answer: %w", err)
	}
	return nil
}
