package memsync

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/fsio"
)

// provenanceFormat is the version of the provenance file layout.
const provenanceFormat = 1

// provenanceFile is the name of a repo's provenance file, next to its
// state file.
const provenanceFile = "provenance.json"

// Provenance is who last changed each key of a repo on the server, from
// the server's history (PROTOCOL.md section 13). The daemon refreshes it
// after a sync that changed the repo (Engine.RefreshProvenance); the
// session-start hook reads it to say who wrote each note. It is persisted
// as JSON next to the repo's state file.
type Provenance struct {
	Format int    `json:"format"`
	Repo   string `json:"repo"`
	// Server is the server's host, as in the state file.
	Server string `json:"server"`
	// StoreID is the server's store identity the versions belong to.
	StoreID string `json:"storeId,omitempty"`
	// Checksum is the repo checksum (State.LastKnownChecksum) the record
	// was made for.
	Checksum string `json:"checksum"`
	// Version is the newest repo version the history showed.
	Version int64 `json:"version"`
	// Complete is false when the history was cut short before every live
	// key had its revision: those keys are missing from Keys.
	Complete bool `json:"complete"`
	// Keys maps each key to its newest revision.
	Keys map[string]Change `json:"keys"`
}

// Change is the newest revision of one key: who made it, when, and what
// it wrote.
type Change struct {
	Version int64     `json:"version"`
	Subject string    `json:"subject"`
	Time    time.Time `json:"time"`
	// Checksum is the entry checksum of the value written; empty for a
	// deletion.
	Checksum string `json:"checksum,omitempty"`
	Deleted  bool   `json:"deleted,omitempty"`
}

// ProvenancePath returns where the provenance file of repo on the server
// at serverURL, synced into the team directory dir, lives under the state
// root stateDir: next to its state file, in the directory the engine
// names after the slug and the server's host (and the directory, for a
// second directory of the repo).
func ProvenancePath(stateDir, repo, serverURL, dir string) (string, error) {
	store, _, err := stateStoreOf(Config{Dir: dir, Repo: repo, Server: serverURL, StateDir: stateDir})
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(store.path), provenanceFile), nil
}

// LoadProvenance reads a provenance file strictly: an unknown field, a
// malformed key or checksum, or another format is an error that names the
// file. A missing file is an fs.ErrNotExist error.
func LoadProvenance(path string) (*Provenance, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read provenance: %w", err)
	}
	p, err := decodeProvenance(data)
	if err != nil {
		return nil, fmt.Errorf("provenance file %s is corrupt: %w", path, err)
	}
	return p, nil
}

// decodeProvenance parses a provenance file and checks that it is
// consistent.
func decodeProvenance(data []byte) (*Provenance, error) {
	var p Provenance
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	if p.Format != provenanceFormat {
		return nil, fmt.Errorf("format %d, want %d", p.Format, provenanceFormat)
	}
	if api.ValidateSlug(p.Repo) != nil || p.Server == "" || !validChecksum(p.Checksum) {
		return nil, errors.New("malformed repo, server or checksum")
	}
	for k, c := range p.Keys {
		if err := c.check(k); err != nil {
			return nil, err
		}
	}
	if p.Keys == nil {
		p.Keys = map[string]Change{}
	}
	return &p, nil
}

// check reports what is wrong with the change recorded for key k.
func (c Change) check(k string) error {
	switch {
	case api.ValidateKey(k, api.Limits{}) != nil:
		return errors.New("malformed key")
	case c.Deleted != (c.Checksum == ""), c.Checksum != "" && !validChecksum(c.Checksum):
		return fmt.Errorf("%s: a change has a well-formed checksum or is a deletion", k)
	case c.Version < 1 || c.Time.IsZero():
		return fmt.Errorf("%s: no version or time", k)
	}
	return nil
}

// save replaces the file at path with p, as compact JSON (indented, a
// record of a thousand notes cost a tenth of a save's refresh more to
// encode), without the fsyncs the state's writes pay: a reader sees the
// old record or all of the new one, and a record a crash took back or
// left empty is made again from the history (RefreshProvenance), which the
// daemon does once at start. It encodes into buf's memory when buf has
// room, and returns the bytes it wrote, which it no longer holds.
func (p *Provenance) save(path string, buf []byte) ([]byte, error) {
	data, err := encodeProvenance(p, buf)
	if err != nil {
		return nil, err
	}
	if err := fsio.ReplaceFile(path, data, 0o600); err != nil {
		return nil, fmt.Errorf("save provenance: %w", err)
	}
	return data, nil
}
