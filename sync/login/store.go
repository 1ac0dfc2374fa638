package login

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotLoggedIn is returned for a server with no stored login.
var ErrNotLoggedIn = errors.New("not logged in")

// Store keeps one login file per server in Dir, each mode 0600 in a 0700
// directory, written atomically.
type Store struct{ Dir string }

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

// Load reads the login of server, or ErrNotLoggedIn.
func (s Store) Load(server string) (Record, error) {
	path, err := s.Path(server)
	if err != nil {
		return Record{}, err
	}
	return load(path)
}

func load(path string) (Record, error) {
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
	if rec.Bearer() == "" {
		return Record{}, fmt.Errorf("login file %s holds no token: run teammemd login again", path)
	}
	return rec, nil
}

// Save writes rec as the login of rec.Server: a temporary file in the same
// directory, synced, then renamed over the old one.
func (s Store) Save(rec Record) error {
	path, err := s.Path(rec.Server)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("encode login: %w", err)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("create login directory: %w", err)
	}
	tmp, err := os.CreateTemp(s.Dir, ".login-*.tmp")
	if err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("save login: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save login: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save login: %w", err)
	}
	return nil
}

// Remove deletes the login of server; it reports whether there was one.
func (s Store) Remove(server string) (bool, error) {
	path, err := s.Path(server)
	if err != nil {
		return false, err
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
