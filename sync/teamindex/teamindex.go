// Package teamindex builds the index of a checkout's team notes that
// "teammemd hook session-start" prints into a Claude Code session: one
// line per note the team holds (its key, the name and description of its
// frontmatter, who last changed it and when), where to write new ones,
// within the caps Claude Code loads an index with. It lists only the
// notes whose content the server holds as they are on disk, as the
// daemon's state last recorded it, never a note's body, and it asks no
// server: it reads the team directory, the daemon's state and its
// provenance record, read-only.
package teamindex

import (
	"cmp"
	"slices"
	"strings"
	"time"

	memsync "github.com/teammemd/teammemd/sync"
)

// Source names what an index is built from.
type Source struct {
	// Dir is the checkout's team directory.
	Dir string
	// Repo and Server are the repo slug and the server URL the daemon
	// syncs the directory with.
	Repo, Server string
	// StateDir is the daemon's state root.
	StateDir string
}

// Note is one note of the index.
type Note struct {
	// Key is the note's path in the team directory, with "/".
	Key string
	// Name and Description are its frontmatter's; empty when it has none.
	Name, Description string
	// Changed is when the note last changed: the time of the server's
	// revision when the provenance record knows it, else the file's
	// modification time.
	Changed time.Time
	// By is who made that revision; empty when the provenance record does
	// not know the note as it is: the change was made on this machine.
	By string
}

// Index is what a session is told about a checkout's team notes.
type Index struct {
	Repo, Dir string
	// Notes are the notes the server holds as they are on disk, newest
	// change first; MEMORY.md is not among them.
	Notes []Note
	// HasIndexNote is set when MEMORY.md, the team's own index note, is
	// one of them.
	HasIndexNote bool
	// Unshared counts the notes left out because the server does not hold
	// them as they are on disk.
	Unshared int
	// PendingReview counts the local changes the server holds for a
	// reviewer before the team gets them.
	PendingReview int
}

// Build reads the index of src's team directory. A repo the daemon never
// synced is memsync.ErrNoState; a missing or corrupt provenance record
// only leaves out who changed each note.
func Build(src Source) (Index, error) {
	shared, err := memsync.SharedNotes(memsync.Config{Dir: src.Dir, Repo: src.Repo, Server: src.Server, StateDir: src.StateDir})
	if err != nil {
		return Index{}, err
	}
	prov := loadProvenance(src)
	idx := Index{Repo: src.Repo, Dir: src.Dir, Unshared: shared.Unshared, PendingReview: shared.PendingReview}
	for _, n := range shared.Notes {
		if n.Key == memsync.IndexKey {
			idx.HasIndexNote = true
			continue
		}
		idx.Notes = append(idx.Notes, indexNote(n, prov))
	}
	slices.SortFunc(idx.Notes, func(a, b Note) int {
		return cmp.Or(b.Changed.Compare(a.Changed), strings.Compare(a.Key, b.Key))
	})
	return idx, nil
}

// loadProvenance returns src's provenance record, or an empty one when
// there is none to read: missing, or corrupt until the daemon writes it
// again.
func loadProvenance(src Source) *memsync.Provenance {
	if path, err := memsync.ProvenancePath(src.StateDir, src.Repo, src.Server, src.Dir); err == nil {
		if p, err := memsync.LoadProvenance(path); err == nil {
			return p
		}
	}
	return &memsync.Provenance{}
}

// indexNote is the index's note for n: who changed it and when from the
// provenance record when the record knows it as it is.
func indexNote(n memsync.SharedNote, prov *memsync.Provenance) Note {
	out := Note{Key: n.Key, Name: n.Name, Description: n.Description, Changed: n.ModTime}
	if c, ok := prov.Keys[n.Key]; ok && !c.Deleted && c.Checksum == n.Checksum {
		out.Changed, out.By = c.Time, cmp.Or(c.Subject, "an unnamed writer")
	}
	return out
}
