package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/sync/login"
)

// TestLoginWithoutKeyring runs teammemd login where no OS keyring answers
// (no session bus, as on a server or in a container): auto keeps the login
// in its file and says why; keyring-only refuses with a clear error before
// it asks anyone to approve a login it could not keep.
func TestLoginWithoutKeyring(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the OS keyring is the Secret Service on the session bus only on Linux: runs on Linux")
	}
	w := newLoginWorld(t)
	bin := teammemdBinary(t)
	noBus := "unix:path=" + filepath.Join(t.TempDir(), "no-bus")
	tests := []struct {
		storage  string
		wantCode int
		want     string
	}{
		{"auto", 0, "The OS keyring did not take it ("},
		{"keyring", 1, "the login is to be kept in the OS keyring, which does not answer: "},
	}
	for _, tt := range tests {
		t.Setenv("XDG_CONFIG_HOME", t.TempDir())
		w.mu.Lock()
		w.next = alice
		w.mu.Unlock()
		cmd := exec.Command(bin, "login", "--server", w.srv.URL, "--storage", tt.storage)
		cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS="+noBus)
		out, err := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Fatal(err)
		}
		started := strings.Contains(string(out), "enter the code")
		if code != tt.wantCode || !strings.Contains(string(out), tt.want) || started != (tt.wantCode == 0) {
			t.Errorf("login --storage %s without a keyring: exit %d\n%s\nwant exit %d and %q, and a device login only if it can be kept", tt.storage, code, out, tt.wantCode, tt.want)
		}
		rec, err := loginStore("").Load(w.srv.URL)
		if tt.wantCode == 0 && (err != nil || rec.InKeyring || rec.Bearer() == "") {
			t.Errorf("login --storage %s: stored %+v, %v, want the tokens in the file", tt.storage, rec, err)
		}
		if tt.wantCode != 0 && err != login.ErrNotLoggedIn {
			t.Errorf("login --storage %s that failed: Load() error = %v, want nothing stored", tt.storage, err)
		}
	}
}

// TestLoginStorageSetting: a storage that is not auto, keyring or file is
// a usage error naming the choices, from the flag or the environment.
func TestLoginStorageSetting(t *testing.T) {
	isolateConfig(t)
	t.Setenv(envServer, "https://mem.acme.com")
	_, stderr, code := runCLI(t, "login", "--storage", "wallet")
	if code != 2 || !strings.Contains(stderr, `login storage "wallet" is not one of auto, keyring, file`) {
		t.Errorf("login --storage wallet: exit %d, stderr %q, want 2 naming the choices", code, stderr)
	}
	t.Setenv(envLoginStorage, "vault")
	if _, stderr, code := runCLI(t, "login"); code != 2 || !strings.Contains(stderr, `"vault" is not one of`) {
		t.Errorf("login with %s=vault: exit %d, stderr %q, want 2 naming the choices", envLoginStorage, code, stderr)
	}
	cfg := writeConfig(t, "[login]\nstorage = \"safe\"\n")
	t.Setenv(envLoginStorage, "")
	if _, stderr, code := runCLI(t, "login", "--config", cfg); code == 0 || !strings.Contains(stderr, `login.storage: login storage "safe"`) {
		t.Errorf("login with [login] storage = \"safe\": exit %d, stderr %q, want an error naming the setting", code, stderr)
	}
}
