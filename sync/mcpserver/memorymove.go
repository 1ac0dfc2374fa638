package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/memindex"
)

// delete removes a file, or every note of a directory, each on the
// condition that it is the version the index holds.
func (m memoryOp) delete(ctx context.Context, p string) (string, error) {
	key, err := memoryKey(p)
	if err != nil {
		return "", err
	}
	if key == "" {
		return "", toolErrorf("Cannot delete the %s directory itself", memoriesRoot)
	}
	notes, err := m.notesAt(p, key)
	if err != nil {
		return "", err
	}
	for _, n := range notes {
		if err := m.sp.Delete(ctx, n.Key, n.Sum); err != nil {
			return "", err
		}
	}
	return "Successfully deleted " + p, nil
}

// notesAt returns the note key names, or the notes of the directory.
func (m memoryOp) notesAt(p, key string) ([]memindex.Note, error) {
	switch m.kind(key) {
	case "file":
		n, _, _ := m.sp.Index().Get(key)
		return []memindex.Note{n}, nil
	case "dir":
		return m.sp.Index().Notes(key + "/"), nil
	}
	return nil, toolErrorf("The path %s does not exist", p)
}

// rename moves a file, or every note of a directory: each is written
// under its new key (which must be free) and then deleted under its old
// one, on the condition that it is still the version read.
func (m memoryOp) rename(ctx context.Context, oldPath, newPath string) (string, error) {
	from, err := noteKey(oldPath)
	if err != nil {
		return "", err
	}
	to, err := noteKey(newPath)
	if err != nil {
		return "", err
	}
	if m.kind(to) != "" {
		return "", toolErrorf("The destination %s already exists", newPath)
	}
	if to == from || strings.HasPrefix(to, from+"/") {
		return "", toolErrorf("Cannot move %s into itself", oldPath)
	}
	notes, err := m.notesAt(oldPath, from)
	if err != nil {
		return "", err
	}
	for _, n := range notes {
		if err := m.move(ctx, n, to+n.Key[len(from):]); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("Successfully renamed %s to %s", oldPath, newPath), nil
}

// move writes n's content as the new note key, then deletes n on the
// condition that it is still the content copied; should the deletion be
// refused, the new note is taken back.
func (m memoryOp) move(ctx context.Context, n memindex.Note, key string) error {
	data, err := readNote(m.sp, n.Key)
	if err != nil {
		return err
	}
	sum, err := m.sp.Put(ctx, key, data, "")
	if err != nil {
		return err
	}
	if err := m.sp.Delete(ctx, n.Key, api.EntryChecksumBytes(data)); err != nil {
		return errors.Join(err, m.sp.Delete(ctx, key, sum))
	}
	return nil
}
