package personal

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/teammemd/teammemd/sync/login"
)

// keyringCall runs f with the store's bound on a keyring call.
func (s *KeyStore) keyringCall(ctx context.Context, f func(ctx context.Context, k login.Keyring) error) error {
	if s.Keyring == nil {
		return errors.New("no OS keyring is configured")
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(s.Wait, login.DefaultKeyringWait))
	defer cancel()
	return f(ctx, s.Keyring)
}

// put writes sec as server's keyring item.
func (s *KeyStore) put(ctx context.Context, server string, sec keySecrets) error {
	data, err := json.Marshal(sec)
	if err != nil {
		return fmt.Errorf("encode the personal key: %w", err)
	}
	err = s.keyringCall(ctx, func(ctx context.Context, k login.Keyring) error {
		return k.Set(ctx, keyringService, login.Origin(server), string(data))
	})
	if err != nil {
		return fmt.Errorf("keep the personal key in the OS keyring: %w", err)
	}
	return nil
}

// fetch reads server's keyring item.
func (s *KeyStore) fetch(ctx context.Context, server string) (keySecrets, error) {
	var data string
	err := s.keyringCall(ctx, func(ctx context.Context, k login.Keyring) error {
		var err error
		data, err = k.Get(ctx, keyringService, login.Origin(server))
		return err
	})
	if errors.Is(err, login.ErrKeyringNotFound) {
		return keySecrets{}, fmt.Errorf("%w: the personal key of %s is gone from the OS keyring", ErrNoKeys, server)
	}
	if err != nil {
		return keySecrets{}, fmt.Errorf("read the personal key of %s from the OS keyring: %w", server, err)
	}
	var sec keySecrets
	if err := json.Unmarshal([]byte(data), &sec); err != nil {
		return keySecrets{}, fmt.Errorf("the OS keyring's personal key of %s is not one teammemd kept: run teammemd personal join", server)
	}
	return sec, nil
}

// drop deletes server's keyring item; none there is no error.
func (s *KeyStore) drop(ctx context.Context, server string) error {
	err := s.keyringCall(ctx, func(ctx context.Context, k login.Keyring) error {
		return k.Delete(ctx, keyringService, login.Origin(server))
	})
	if errors.Is(err, login.ErrKeyringNotFound) {
		return nil
	}
	return err
}
