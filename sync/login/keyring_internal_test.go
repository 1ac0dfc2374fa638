package login

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestKeyringCallBounded has the keyring hang, as a locked Secret Service
// waiting on its unlock prompt does: the caller gets an error when its
// context ends, later callers fail at once instead of queueing behind the
// hung call, and the keyring works again once that call returns.
func TestKeyringCallBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newOSKeyring()
		release := make(chan struct{})
		ctx, cancel := context.WithTimeout(t.Context(), DefaultKeyringWait)
		defer cancel()
		err := k.call(ctx, func() error { <-release; return nil })
		if err == nil || !strings.Contains(err.Error(), "did not answer in time") {
			t.Errorf("call(hung keyring) = %v, want an error saying it did not answer", err)
		}
		ran := false
		if err := k.call(t.Context(), func() error { ran = true; return nil }); !errors.Is(err, ErrKeyringBusy) || ran {
			t.Errorf("call(while one hangs) = %v (ran %v), want ErrKeyringBusy without running", err, ran)
		}
		close(release)
		synctest.Wait()
		if err := k.call(t.Context(), func() error { ran = true; return nil }); err != nil || !ran {
			t.Errorf("call(after the hung one returned) = %v (ran %v), want it run", err, ran)
		}
	})
}

// TestKeyringCallsQueue has two calls at once: the second waits for the
// first and both succeed.
func TestKeyringCallsQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newOSKeyring()
		release := make(chan struct{})
		errs := make(chan error, 2)
		go func() { errs <- k.call(t.Context(), func() error { <-release; return nil }) }()
		synctest.Wait()
		go func() { errs <- k.call(t.Context(), func() error { return nil }) }()
		synctest.Wait()
		close(release)
		for range 2 {
			if err := <-errs; err != nil {
				t.Errorf("call(two at once) = %v, want both to succeed in turn", err)
			}
		}
	})
}

// busyKeyring is the OS keyring while an earlier call hangs: every call
// fails with ErrKeyringBusy.
func busyKeyring() *osKeyring {
	k := newOSKeyring()
	k.slot <- struct{}{}
	k.hung.Store(true)
	return k
}

// TestKeepFallsBackToFile keeps a new login where the keyring does not
// answer: auto keeps it in the file and says why; keyring-only refuses and
// writes nothing.
func TestKeepFallsBackToFile(t *testing.T) {
	const server = "https://mem.acme.com"
	rec := Record{Server: server, IDToken: "id-token", RefreshToken: "refresh-token", Expiry: time.Unix(2e9, 0).UTC()}

	auto := Store{Dir: t.TempDir(), Keyring: busyKeyring()}
	w, err := auto.Keep(context.Background(), rec)
	if err != nil || w.Keyring || !errors.Is(w.Fallback, ErrKeyringBusy) {
		t.Fatalf("Keep(auto, keyring busy) = %+v, %v, want kept in the file with the reason", w, err)
	}
	got, err := auto.Load(server)
	if err != nil || got.IDToken != rec.IDToken || got.RefreshToken != rec.RefreshToken || got.InKeyring || got.Storage != StorageAuto {
		t.Errorf("Load() = %+v, %v, want the tokens from the file", got, err)
	}

	strict := Store{Dir: t.TempDir(), Keyring: busyKeyring(), Storage: StorageKeyring}
	if _, err := strict.Keep(context.Background(), rec); !errors.Is(err, ErrKeyringBusy) {
		t.Errorf("Keep(keyring-only, keyring busy) error = %v, want ErrKeyringBusy", err)
	}
	// The refresh lock Keep took stays, as after any refresh: it is
	// empty, and removing a lock file another process may wait on would
	// let two hold it.
	entries, _ := os.ReadDir(strict.Dir)
	if entries = slices.DeleteFunc(entries, isLock); len(entries) != 0 {
		t.Errorf("Keep(keyring-only) that failed left %d files, want none", len(entries))
	}
}

// TestRefreshKeptWhenKeyringFails saves a refreshed login whose tokens
// were in the keyring while the keyring does not answer: an auto login
// goes into the file rather than be lost (the provider may have spent the
// old refresh token); a keyring-only one is an error and the file keeps
// pointing at the keyring.
func TestRefreshKeptWhenKeyringFails(t *testing.T) {
	const server = "https://mem.acme.com"
	for _, storage := range []Storage{StorageAuto, StorageKeyring} {
		s := Store{Dir: t.TempDir(), Keyring: busyKeyring()}
		path, _ := s.Path(server)
		old := Record{Server: server, InKeyring: true, Storage: storage}
		if err := writeFile(path, old); err != nil {
			t.Fatal(err)
		}
		refreshed := old
		refreshed.IDToken, refreshed.RefreshToken = "new-id", "new-refresh"
		err := s.Save(refreshed)
		data, _ := os.ReadFile(filepath.Clean(path))
		inFile := strings.Contains(string(data), "new-refresh")
		if storage == StorageAuto && (err != nil || !inFile) {
			t.Errorf("Save(auto refresh, keyring busy) = %v, new tokens in file %v, want them kept in the file", err, inFile)
		}
		if storage == StorageKeyring && (!errors.Is(err, ErrKeyringBusy) || inFile) {
			t.Errorf("Save(keyring-only refresh, keyring busy) = %v, new tokens in file %v, want ErrKeyringBusy and none", err, inFile)
		}
	}
}

// isLock reports whether e is a login's refresh lock.
func isLock(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".lock") }
