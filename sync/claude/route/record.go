package route

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// recordFormat is the version of the record's layout.
const recordFormat = 1

// Record is what setup changed in Claude Code's settings, kept so that
// Undo can reverse it.
type Record struct {
	Format int `json:"format"`
	// Settings is the settings file changed.
	Settings string `json:"settings"`
	// Existed is whether that file existed before the first setup.
	Existed bool `json:"existed"`
	// Backup is the copy of the file made before the first setup.
	Backup string `json:"backup,omitempty"`
	// Exact holds while the file has changed only by setup since the
	// backup, so that the backup is exactly the file without setup.
	Exact bool `json:"exact"`
	// Written is the sha256 of the file as setup last wrote it.
	Written string `json:"written"`
	// Env maps each env key setup set to its value before the first
	// setup that set it; null where it was absent.
	Env map[string]*string `json:"env"`
	// Set maps each env key to the value setup last set.
	Set map[string]string `json:"set"`
	// Hook is the SessionStart hook's command line setup added.
	Hook string `json:"hook"`
	// Created lists the objects setup created: "env", "hooks",
	// "hooks.SessionStart".
	Created []string `json:"created,omitempty"`
	// Time is when setup last wrote the file.
	Time time.Time `json:"time"`
}

// WriteFunc writes a whole file atomically with mode perm.
type WriteFunc func(path string, data []byte, perm fs.FileMode) error

// LoadRecord reads the record at path; a missing one is (nil, nil).
func LoadRecord(path string) (*Record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the setup record: %w", err)
	}
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("setup record %s: %w", path, err)
	}
	if r.Format != recordFormat || r.Settings == "" || r.Env == nil {
		return nil, fmt.Errorf("setup record %s: format %d or fields it does not have", path, r.Format)
	}
	return &r, nil
}

func (r *Record) save(path string, write WriteFunc) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the setup record: %w", err)
	}
	return write(path, append(data, '\n'), 0o600)
}

// sum is the hex sha256 of data.
func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// created lists the objects of doc that merging would create.
func created(doc []byte) []string {
	var out []string
	for _, p := range []string{"env", "hooks", "hooks.SessionStart"} {
		if !existsIn(doc, p) {
			out = append(out, p)
		}
	}
	return out
}
