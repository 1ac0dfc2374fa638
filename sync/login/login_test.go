package login

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestStorePath(t *testing.T) {
	s := Store{Dir: "/cfg/logins"}
	tests := []struct{ server, want string }{
		{"https://teammemd.example.com", "/cfg/logins/https_teammemd.example.com.json"},
		{"http://127.0.0.1:8787/", "/cfg/logins/http_127.0.0.1_8787.json"},
		{"https://mem.acme.com/prefix", "/cfg/logins/https_mem.acme.com.json"},
	}
	for _, tt := range tests {
		if got, err := s.Path(tt.server); err != nil || got != tt.want {
			t.Errorf("Path(%s) = %q, %v, want %q", tt.server, got, err, tt.want)
		}
	}
	if _, err := s.Path("not a url"); err == nil {
		t.Error("Path(not a url) = nil error, want one")
	}
}

func TestStoreSaveLoadRemove(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "logins")}
	const server = "https://mem.acme.com"
	if _, err := s.Load(server); !errors.Is(err, ErrNotLoggedIn) {
		t.Errorf("Load(no login) error = %v, want ErrNotLoggedIn", err)
	}
	rec := Record{Server: server, IDToken: "id", RefreshToken: "rt", Expiry: time.Unix(1e9, 0).UTC()}
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(server)
	fi, err := os.Stat(path)
	di, derr := os.Stat(s.Dir)
	if err != nil || derr != nil || fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("login file %v (%v), directory %v (%v), want 0600 in 0700", fi.Mode(), err, di.Mode(), derr)
	}
	if got, err := s.Load(server); err != nil || got != rec {
		t.Errorf("Load() = %+v, %v, want %+v", got, err, rec)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(server); err == nil || !strings.Contains(err.Error(), "run teammemd login again") {
		t.Errorf("Load(corrupt) error = %v, want one saying to log in again", err)
	}
	if removed, err := s.Remove(context.Background(), server); !removed || err != nil {
		t.Errorf("Remove() = %v, %v, want true, nil", removed, err)
	}
	if removed, err := s.Remove(context.Background(), server); removed || err != nil {
		t.Errorf("Remove(again) = %v, %v, want false, nil", removed, err)
	}
	entries, _ := os.ReadDir(s.Dir) // less the refresh lock, which stays
	entries = slices.DeleteFunc(entries, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".lock") })
	if len(entries) != 0 {
		t.Errorf("login directory holds %d files after Remove, want none (no temporary files left)", len(entries))
	}
}

// TestSourceRereads checks that the source hands out whatever login the
// file holds now, and says how to log in once it is gone.
func TestSourceRereads(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	const server = "https://mem.acme.com"
	src, err := NewSource(s, server, nil, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"first", "second", "third"} {
		if err := s.Save(Record{Server: server, IDToken: id}); err != nil {
			t.Fatal(err)
		}
		if tok, err := src.Token(); err != nil || tok.AccessToken != id {
			t.Errorf("Token() after saving %s = %v, %v, want %s", id, tok, err, id)
		}
	}
	if _, err := s.Remove(context.Background(), server); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Token(); !errors.Is(err, ErrNotLoggedIn) || !strings.Contains(err.Error(), "teammemd login --server "+server) {
		t.Errorf("Token() after logout error = %v, want ErrNotLoggedIn naming the login command", err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		issuer string
		ok     bool
	}{
		{"", true},
		{"https://login.acme.com", true},
		{"http://127.0.0.1:9000", true},
		{"http://localhost:9000", true},
		{"http://127.0.0.1.evil.example/", false},
		{"http://login.acme.com", false},
		{"login.acme.com", false},
	}
	for _, tt := range tests {
		if err := (Config{Issuer: tt.issuer}).Validate(); (err == nil) != tt.ok {
			t.Errorf("Config{Issuer: %q}.Validate() = %v, want ok %v", tt.issuer, err, tt.ok)
		}
	}
}
