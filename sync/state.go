package memsync

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/fsio"
)

// stateFormat is the version of the state file layout.
const stateFormat = 1

// State is what the engine remembers about one repo between syncs
// (PROTOCOL.md section 6), persisted as JSON.
type State struct {
	Format int    `json:"format"`
	Repo   string `json:"repo"`
	Server string `json:"server"`
	// LastKnownChecksum is the repo checksum after the last pull or push.
	LastKnownChecksum string `json:"lastKnownChecksum"`
	// LastKnownVersion is the repo version LastKnownChecksum is of; 0 when
	// unknown. A server whose deletion markers were compacted through a
	// later version may have dropped the marker of a deletion this state
	// never saw (PROTOCOL.md section 12).
	LastKnownVersion int64 `json:"lastKnownVersion,omitempty"`
	// StoreID is the identity of the server's database that
	// LastKnownChecksum, ServerChecksums and Tombstones describe; empty
	// before the server named one.
	StoreID string `json:"storeId,omitempty"`
	// ServerChecksums maps key to the entry checksum the server holds.
	ServerChecksums map[string]string `json:"serverChecksums"`
	// Base maps key to the checksum both sides agreed on at the last sync:
	// the merge base that tells a local edit from a teammate's.
	Base map[string]string `json:"base"`
	// ServerMaxEntries is not used: a push learns the server's entry cap
	// from the 413 it meets, as the server's admin may raise it. A state
	// file that holds it still loads.
	ServerMaxEntries int `json:"serverMaxEntries,omitempty"`
	// Tombstones are the keys known deleted on the server (Unix ms; 0
	// when unknown): its markers as last seen, and the deletions of keys
	// in Base it no longer marks (see knownDeletions).
	Tombstones map[string]int64 `json:"tombstones,omitempty"`
	// Rejected maps key to the server's refusal of that exact content.
	Rejected map[string]Rejection `json:"rejected,omitempty"`
	// Review maps key to its local change that the server holds for
	// review (PROTOCOL.md section 14).
	Review map[string]ReviewNote `json:"review,omitempty"`
	// HeldDeletions lists the local deletions the mass deletion guard held
	// back. They stay held until sent with AllowMassDelete or the files are
	// back, also once the files synced since make them half or fewer.
	HeldDeletions []string `json:"heldDeletions,omitempty"`
	// Conflicts lists the conflict copies kept so far.
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// Index caches the hash of each local file by size, mtime and inode.
	Index map[string]IndexEntry `json:"index"`
	// PullAgain is set when a pull left a server change unapplied for a
	// reason that may pass (a file it could not read, a directory of the
	// user's in the way): the next pull fetches in full even if the repo
	// has not changed.
	PullAgain bool `json:"pullAgain,omitempty"`
}

// Rejection is a server's 4xx refusal of one key's content. A refusal of
// the content itself holds the key back until the file changes; one for
// want of room (forRoom) holds it back for the rest of the push, and the
// next push sends it again.
type Rejection struct {
	Checksum string `json:"checksum"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// IndexEntry identifies a file version without reading it.
type IndexEntry struct {
	Size    int64  `json:"size"`
	MtimeNs int64  `json:"mtimeNs"`
	Inode   uint64 `json:"inode"`
	Hash    string `json:"hash"`
	// Racy marks a hash taken so soon after the file's mtime that a later
	// write could keep the same mtime; it is re-hashed next time.
	Racy bool `json:"racy,omitempty"`
}

func newState(repo, server string) *State {
	return &State{
		Format: stateFormat, Repo: repo, Server: server,
		ServerChecksums: map[string]string{}, Base: map[string]string{}, Index: map[string]IndexEntry{},
	}
}

// decodeState parses a state file and checks that it is consistent.
func decodeState(data []byte) (*State, error) {
	var st State
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	if dec.More() {
		return nil, errors.New("decode state: trailing data")
	}
	if st.Format != stateFormat {
		return nil, fmt.Errorf("state format %d, want %d", st.Format, stateFormat)
	}
	if st.LastKnownChecksum != "" && !validChecksum(st.LastKnownChecksum) {
		return nil, errors.New("state: malformed lastKnownChecksum")
	}
	if st.StoreID != "" && !api.ValidStoreID(st.StoreID) {
		return nil, errors.New("state: malformed storeId")
	}
	for _, m := range []map[string]string{st.ServerChecksums, st.Base} {
		for k, sum := range m {
			if !validChecksum(sum) || api.ValidateKey(k, api.Limits{}) != nil {
				return nil, errors.New("state: malformed key or checksum")
			}
		}
	}
	for k, n := range st.Review {
		if api.ValidateKey(k, api.Limits{}) != nil || n.Proposal <= 0 || (n.Checksum != "" && !validChecksum(n.Checksum)) ||
			(n.Base != "" && !validChecksum(n.Base)) || (n.State != ReviewPending && n.State != ReviewRejected) {
			return nil, errors.New("state: malformed review note")
		}
	}
	if st.ServerChecksums == nil {
		st.ServerChecksums = map[string]string{}
	}
	if st.Base == nil {
		st.Base = map[string]string{}
	}
	if st.Index == nil {
		st.Index = map[string]IndexEntry{}
	}
	return &st, nil
}

func validChecksum(s string) bool {
	hex, ok := strings.CutPrefix(s, api.ChecksumPrefix)
	return ok && len(hex) == 64 && fsio.IsHex(hex)
}

// stateStore reads and writes one repo's state file.
type stateStore struct {
	path string
	last []byte // the bytes last read or written, to skip no-op saves
	// spare is memory for the next save's bytes: those of an earlier save
	// or of one that changed nothing, which nothing refers to any more.
	spare []byte
	// cache is the state last read or written (statecache.go); load and
	// save keep it, and only they use it.
	cache stateCache
}

// load reads the state. A missing file yields a fresh state; a corrupt one
// is moved aside (the returned warning says where) and also yields a fresh
// state, so the next sync is a safe full resync.
func (s *stateStore) load(repo, server string, now time.Time) (st *State, movedTo string, err error) {
	if fi, err := os.Stat(s.path); err == nil {
		if st, ok := s.cache.get(stampOf(fi)); ok && st.Repo == repo && st.Server == server {
			return st, "", nil
		}
	}
	data, stamp, err := readStamped(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.last = nil
		s.cache.forget()
		return newState(repo, server), "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read state: %w", err)
	}
	st, derr := decodeState(data)
	if derr == nil && st.Repo == repo && st.Server == server {
		s.last = data
		s.cache.put(st, stamp, true)
		return st, "", nil
	}
	s.last = nil
	s.cache.forget()
	aside := s.path + ".corrupt-" + now.UTC().Format("20060102T150405.000000000Z")
	if err := os.Rename(s.path, aside); err != nil {
		return nil, "", fmt.Errorf("move corrupt state aside: %w", err)
	}
	return newState(repo, server), aside, nil
}

// loadReadOnly reads the state without moving a corrupt file aside; a
// missing or corrupt file reads as a fresh state.
func (s *stateStore) loadReadOnly(repo, server string) (*State, bool, error) {
	st, err := s.read(repo, server)
	switch {
	case err == nil:
		return st, true, nil
	case errors.Is(err, ErrNoState), errors.Is(err, errBadState):
		return newState(repo, server), false, nil
	}
	return nil, false, err
}

// ErrNoState is the error of a read of a repo's state that finds no state
// file: the repo never synced with this state directory.
var ErrNoState = errors.New("no sync state")

// errBadState marks a state file that does not decode, or is another
// repo's or server's.
var errBadState = errors.New("state file unusable")

// read reads the state, leaving the file as it is: a missing file is
// ErrNoState, a corrupt one errBadState.
func (s *stateStore) read(repo, server string) (*State, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", s.path, ErrNoState)
	}
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	st, err := decodeState(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", errBadState, s.path, err)
	}
	if st.Repo != repo || st.Server != server {
		return nil, fmt.Errorf("%w: %s is the state of %s on %s, not of %s on %s", errBadState, s.path, st.Repo, st.Server, repo, server)
	}
	return st, nil
}

// save writes the state atomically unless it is unchanged. The store
// keeps st as the state last saved: the caller hands it over and no
// longer modifies it.
func (s *stateStore) save(st *State) error {
	data, err := encodeState(st, s.spare)
	if err != nil {
		return err
	}
	if bytes.Equal(data, s.last) {
		s.spare = data
		return nil
	}
	if err := fsio.WriteFile(s.path, data, 0o600); err != nil {
		s.last, s.spare = nil, data
		s.cache.forget()
		return fmt.Errorf("save state: %w", err)
	}
	s.last, s.spare = data, s.last
	if fi, err := os.Stat(s.path); err == nil {
		s.cache.put(st, stampOf(fi), false)
	} else {
		s.cache.forget()
	}
	return nil
}

// stateFile is the name of a repo's state file in its state directory.
const stateFile = "state.json"

// repoStateDir is the directory of one repo's state, lock and provenance
// under the state root, for the server at host (Client.Host).
func repoStateDir(stateDir, slug, host string) string {
	return filepath.Join(stateDir, "repos", repoStateName(slug, host))
}

// repoStateName names a repo's state directory: the slug with "/" as "+",
// "@", and the server host with ":" and brackets as "_".
func repoStateName(slug, host string) string {
	return strings.ReplaceAll(slug, "/", "+") + "@" + strings.NewReplacer(":", "_", "[", "_", "]", "_").Replace(host)
}

// reviewNotes lists the state's notes, by key.
func reviewNotes(st *State) []ReviewNote {
	var out []ReviewNote
	for k, n := range st.Review {
		n.Key = k
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b ReviewNote) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	return out
}
