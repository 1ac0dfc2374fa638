package login

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/zalando/go-keyring"
)

// keyringService is the service name logins are kept under in the OS
// keyring; the item's user is the server's origin.
const keyringService = "teammemd"

// DefaultKeyringWait bounds one call to the OS keyring from a process that
// nobody watches (the daemon, sync): a locked keyring asks its owner to
// unlock it, and that prompt may never be answered.
const DefaultKeyringWait = 10 * time.Second

// ErrKeyringNotFound means the keyring holds no login for the server.
var ErrKeyringNotFound = errors.New("no login in the OS keyring")

// ErrKeyringBusy means an earlier call to the OS keyring has not returned:
// the keyring is waiting for its owner to unlock it.
var ErrKeyringBusy = errors.New("the OS keyring has not answered an earlier request: it is probably locked and waiting for you to unlock it")

// Keyring is a store of secrets by service and user: the OS keyring (the
// Secret Service on Linux and BSD, the login Keychain on macOS, the
// Credential Manager on Windows).
type Keyring interface {
	Get(ctx context.Context, service, user string) (string, error)
	Set(ctx context.Context, service, user, secret string) error
	Delete(ctx context.Context, service, user string) error
}

// osKeyring is the OS keyring. Its calls cannot be cancelled (a locked
// Secret Service waits for its unlock prompt for as long as it takes), so
// each runs on a goroutine of its own, one at a time, and callers queue
// for their turn until their context ends. A call that outlives its
// caller's context is left to finish; until it does, the keyring counts as
// hung and every other call fails at once with ErrKeyringBusy instead of
// waiting out its own deadline behind it.
type osKeyring struct {
	slot chan struct{}
	hung atomic.Bool
}

// OSKeyring is the process's one handle on the OS keyring.
var OSKeyring Keyring = newOSKeyring()

func newOSKeyring() *osKeyring { return &osKeyring{slot: make(chan struct{}, 1)} }

func (k *osKeyring) Get(ctx context.Context, service, user string) (string, error) {
	var secret string
	err := k.call(ctx, func() error {
		var err error
		secret, err = keyring.Get(service, user)
		return err
	})
	return secret, err
}

func (k *osKeyring) Set(ctx context.Context, service, user, secret string) error {
	return k.call(ctx, func() error { return keyring.Set(service, user, secret) })
}

func (k *osKeyring) Delete(ctx context.Context, service, user string) error {
	return k.call(ctx, func() error { return keyring.Delete(service, user) })
}

// call waits for its turn, runs f on its own goroutine and waits for it or
// for ctx. The goroutine ends when f returns, whether or not anyone waits.
func (k *osKeyring) call(ctx context.Context, f func() error) error {
	if k.hung.Load() {
		return ErrKeyringBusy
	}
	select {
	case k.slot <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("the OS keyring is busy (%w)", ctx.Err())
	}
	done := make(chan error, 1)
	go func() {
		done <- f()
		k.hung.Store(false)
		<-k.slot
	}()
	select {
	case err := <-done:
		return keyringError(err)
	case <-ctx.Done():
	}
	k.hung.Store(true)
	select {
	case err := <-done: // f returned meanwhile, maybe before hung was set
		k.hung.Store(false)
		return keyringError(err)
	default:
		return fmt.Errorf("the OS keyring did not answer in time (%w): it is probably locked; unlock it, or log in with --storage file", ctx.Err())
	}
}

// keyringError names the library's errors in the project's terms.
func keyringError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keyring.ErrNotFound):
		return ErrKeyringNotFound
	case errors.Is(err, keyring.ErrSetDataTooBig):
		return fmt.Errorf("the login is too large for the OS keyring (%w)", err)
	case errors.Is(err, keyring.ErrUnsupportedPlatform):
		return fmt.Errorf("this system has no OS keyring teammemd can use (%w)", err)
	}
	return fmt.Errorf("OS keyring: %w", err)
}
