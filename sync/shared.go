package memsync

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// headBytes is how much of a shared note SharedNotes reads for its
// frontmatter when the state's index spares it the hash.
const headBytes = 8 << 10

// SharedNote is a note of a team directory whose content is what the
// server holds.
type SharedNote struct {
	// Key is the note's path in the team directory, with "/".
	Key string
	// Checksum is its entry checksum, the server's too.
	Checksum string
	// ModTime is the file's modification time.
	ModTime time.Time
	// Name and Description are its frontmatter's; empty when it has none.
	Name, Description string
}

// Shared is what SharedNotes found in a team directory.
type Shared struct {
	// Notes are the notes the server holds as they are on disk, by key.
	Notes []SharedNote
	// Unshared counts the other files that would sync: not pushed yet,
	// held back (a secret, a personal note, unreadable), refused by the
	// server, or changed on the server and not pulled yet.
	Unshared int
	// PendingReview counts the local changes the server holds for review
	// (PROTOCOL.md section 14), as the state last recorded them.
	PendingReview int
}

// SharedNotes lists the notes of cfg's team directory whose content is
// what the server holds, as the repo's state last recorded the server,
// for a reader outside the engine such as the session-start hook: it asks
// no server, takes no lock, reads the state without moving a corrupt file
// aside, and writes nothing. A note whose size, mtime and inode match the
// state's index is not hashed; of it, only the head is read, for its
// frontmatter. A repo never synced with cfg.StateDir is ErrNoState.
func SharedNotes(cfg Config) (Shared, error) {
	store, host, err := stateStoreOf(cfg)
	if err != nil {
		return Shared{}, err
	}
	st, err := store.read(cfg.Repo, host)
	if err != nil {
		return Shared{}, err
	}
	td, err := openTeamDir(cfg.Dir)
	if err != nil {
		return Shared{}, err
	}
	defer td.close()
	found, sc, err := td.walkFrom(".")
	if err != nil {
		return Shared{}, err
	}
	out := Shared{Unshared: len(sc.held)}
	for _, n := range st.Review {
		if n.State == ReviewPending {
			out.PendingReview++
		}
	}
	for _, f := range found {
		n, ok := td.sharedNote(f, st)
		if !ok {
			out.Unshared++
			continue
		}
		out.Notes = append(out.Notes, n)
	}
	return out, nil
}

// sharedNote reads one file found by walkFrom and reports whether its
// content is what st says the server holds.
func (t *teamDir) sharedNote(f localFile, st *State) (SharedNote, bool) {
	want, onServer := st.ServerChecksums[f.key]
	if !onServer {
		return SharedNote{}, false
	}
	fi, err := f.d.Info()
	if err != nil || fi.Size() > MaxFileBytes {
		return SharedNote{}, false
	}
	var head []byte
	if cached := st.Index[f.key]; cached.fresh(statEntry(fi)) {
		if cached.Hash != want {
			return SharedNote{}, false
		}
		head, err = t.readHead(f.key, min(fi.Size(), headBytes))
	} else {
		head, err = t.read(f.key)
		if err == nil && entrySum(head) != want {
			return SharedNote{}, false
		}
	}
	if err != nil {
		return SharedNote{}, false
	}
	name, desc := NoteFields(head)
	return SharedNote{Key: f.key, Checksum: want, ModTime: fi.ModTime(), Name: name, Description: desc}, true
}

// readHead reads the first n bytes of key's file, or all of it when it
// is shorter.
func (t *teamDir) readHead(key string, n int64) ([]byte, error) {
	f, err := t.root.Open(key)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	defer f.Close()
	head := make([]byte, n)
	got, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return head[:got], nil
}

// SyncedFrom is how many files the repo's state records as synced from
// cfg's team directory, as the engine would find its state; 0 for a repo
// never synced with cfg.StateDir. It reads the state as SharedNotes does,
// without a lock and without writing anything.
func SyncedFrom(cfg Config) (int, error) {
	store, host, err := stateStoreOf(cfg)
	if err != nil {
		return 0, err
	}
	st, found, err := store.loadReadOnly(cfg.Repo, host)
	if err != nil || !found {
		return 0, err
	}
	return len(st.Base), nil
}

// stateStoreOf is the state of cfg's repo and team directory as a reader
// outside the engine finds it (it records nothing), and the server's
// host the state is of.
func stateStoreOf(cfg Config) (stateStore, string, error) {
	u, err := parseServer(cfg.Server)
	if err != nil {
		return stateStore{}, "", err
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return stateStore{}, "", fmt.Errorf("team directory: %w", err)
	}
	repoDir, err := stateDirOf(cfg.StateDir, cfg.Repo, u.Host, dir, false)
	if err != nil {
		return stateStore{}, "", err
	}
	return stateStore{path: filepath.Join(repoDir, stateFile)}, u.Host, nil
}
