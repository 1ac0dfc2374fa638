// Package logintest gives tests the OS keyring teammemd keeps logins in,
// when the machine runs one they may use.
package logintest

import (
	"context"
	"crypto/rand"
	"os"
	"testing"
	"time"

	"github.com/teammemd/teammemd/sync/login"
)

// EnvKeyring opts tests in to the OS keyring: they write to it and delete
// what they wrote, under server names of their own. CI sets it and runs a
// private Secret Service; on a desktop it is the user's own keyring.
const EnvKeyring = "TEAMMEMD_TEST_KEYRING"

// Keyring returns the OS keyring after checking that it keeps a secret,
// or skips the test when EnvKeyring is not 1. With EnvKeyring=1 a keyring
// that does not answer fails the test.
func Keyring(t testing.TB) login.Keyring {
	t.Helper()
	if os.Getenv(EnvKeyring) != "1" {
		t.Skip("set " + EnvKeyring + "=1 with a Secret Service on the session bus to test the OS keyring (see .ci/run, which starts a private one)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k := login.OSKeyring
	const service, user = "teammemd-test", "probe"
	want := rand.Text()
	if err := k.Set(ctx, service, user, want); err != nil {
		t.Fatalf("%s=1 but the OS keyring does not keep a secret: %v", EnvKeyring, err)
	}
	got, err := k.Get(ctx, service, user)
	if derr := k.Delete(ctx, service, user); err == nil {
		err = derr
	}
	if err != nil || got != want {
		t.Fatalf("the OS keyring gave back %q, %v, want what was kept", got, err)
	}
	return k
}

// Server is a server URL no real login uses, for a test's keyring items.
func Server() string { return "https://" + rand.Text() + ".test.invalid" }
