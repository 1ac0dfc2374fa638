package memsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/sync/fsio"
)

// SecretError refuses a write whose name or content holds a secret. It
// names the rules that matched, never the secret.
type SecretError struct {
	// Key is the note's key, redacted when its name holds the secret.
	Key   string
	Rules []string
	// Line is the content's line of the first finding, 0 for the name.
	Line int
}

func (e *SecretError) Error() string {
	where := "in its name"
	if e.Line > 0 {
		where = fmt.Sprintf("on line %d", e.Line)
	}
	return fmt.Sprintf("%s holds a secret %s (rules: %s); refused, nothing was written", e.Key, where, strings.Join(e.Rules, ", "))
}

// Write replaces key's note with data when its checksum is ifMatch, or
// creates it when ifMatch is "" and it does not exist, and returns the new
// checksum. A changed note is a *StaleError, a secret a *SecretError,
// a path through a symlink or a note that is not a regular file a
// *noteFileError worded as Read words it; each leaves the disk
// untouched. A missing team directory is created for a new note.
func (n *Notes) Write(ctx context.Context, key string, data []byte, ifMatch string) (string, error) {
	want, err := n.checkWrite(ctx, key, data, ifMatch)
	if err != nil {
		return "", err
	}
	if want == "" {
		if err := createTeamDir(n.dir); err != nil {
			return "", err
		}
	}
	td, err := openTeamDir(n.dir)
	if err != nil {
		return "", noteError(key, want, err)
	}
	defer td.close()
	if err := td.checkNote(opWrite, key); err != nil {
		return "", err
	}
	if err := writeIfMatch(td, key, data, want); err != nil {
		return "", noteError(key, want, err)
	}
	return entrySum(data), td.syncDirs(map[string]bool{path.Dir(key): true})
}

// writeIfMatch creates key's file, and its directories, when want is "";
// else it replaces the file when its checksum is want.
func writeIfMatch(td *teamDir, key string, data []byte, want string) error {
	if want == "" {
		dir, err := td.openDir(key)
		if err != nil {
			return err
		}
		defer dir.Close()
		return createIfAbsent(dir, path.Base(key), data)
	}
	dir, err := td.openParent(key)
	if err != nil {
		return err
	}
	defer dir.Close()
	return replaceIfMatch(dir, path.Base(key), data, want)
}

// Delete removes key's note when its checksum is ifMatch, which must be
// given. A changed or missing note is a *StaleError; a path through a
// symlink or a note that is not a regular file is refused as Read
// refuses it, in the same words.
func (n *Notes) Delete(key, ifMatch string) error {
	want, err := NoteSum(ifMatch)
	if err != nil {
		return err
	}
	if want == "" {
		return fmt.Errorf("delete %s: pass the sha256 of the version read", key)
	}
	if err := CheckNoteKey(key); err != nil {
		return err
	}
	td, err := openTeamDir(n.dir)
	if err != nil {
		return noteError(key, want, err)
	}
	defer td.close()
	if err := td.checkNote(opDelete, key); err != nil {
		return err
	}
	dir, err := td.openParent(key)
	if err != nil {
		return noteError(key, want, err)
	}
	defer dir.Close()
	if err := removeIfMatch(dir, path.Base(key), want); err != nil {
		return noteError(key, want, err)
	}
	return td.syncDir(path.Dir(key))
}

// checkWrite refuses a write before it touches disk: a malformed
// precondition, a key that never syncs, content that is not UTF-8 text
// or too large, or a secret in the name or the content. It returns the
// precondition as a checksum.
func (n *Notes) checkWrite(ctx context.Context, key string, data []byte, ifMatch string) (string, error) {
	want, err := NoteSum(ifMatch)
	if err != nil {
		return "", err
	}
	if err := CheckNoteKey(key); err != nil {
		return "", err
	}
	switch {
	case !utf8.Valid(data):
		return "", fmt.Errorf("%s: the content is not UTF-8 text, which never syncs", key)
	case len(data) > MaxFileBytes:
		return "", fmt.Errorf("%s: %d bytes, over the %d a note may hold", key, len(data), MaxFileBytes)
	}
	return want, n.scan(ctx, key, data)
}

// scan looks for a secret in key's name, then in data, as a push does.
func (n *Notes) scan(ctx context.Context, key string, data []byte) error {
	if n.scanner == nil {
		return errors.New("no secret scanner: refusing to write")
	}
	named, err := n.scanner.Key(ctx, key)
	if err != nil {
		return fmt.Errorf("scan the name %s for secrets: %w", api.RedactKey(key), err)
	}
	if len(named) > 0 {
		return &SecretError{Key: api.RedactKey(key), Rules: scan.RuleIDs(named)}
	}
	found, err := n.scanner.File(ctx, filepath.Join(n.dir, filepath.FromSlash(key)), data)
	if err != nil {
		return fmt.Errorf("scan %s for secrets: %w", key, err)
	}
	if len(found) > 0 {
		return &SecretError{Key: key, Rules: scan.RuleIDs(found), Line: found[0].Line}
	}
	return nil
}

// noteError gives a *StaleError from the file operations key and want,
// and says what a missing parent directory means.
func noteError(key, want string, err error) error {
	var se *StaleError
	switch {
	case errors.As(err, &se):
		se.Key, se.Want = key, want
		return se
	case errors.Is(err, fs.ErrNotExist) && want != "":
		return &StaleError{Key: key, Want: want}
	}
	return err
}

// createIfAbsent writes data as the new file name in dir, refusing one
// that exists (RENAME_NOREPLACE where the system has it).
func createIfAbsent(dir *os.Root, name string, data []byte) error {
	tmp, err := fsio.CreateTemp(dir, data, 0o644, nil)
	if err != nil {
		return err
	}
	err = fsio.RenameNoReplace(dir, tmp, name)
	if err == nil {
		return nil
	}
	dir.Remove(tmp)
	if errors.Is(err, fs.ErrExist) {
		return &StaleError{Current: fileSum(dir, name)}
	}
	return err
}

// fileSum is the checksum of name in dir, "" when it cannot be read.
func fileSum(dir *os.Root, name string) string {
	data, err := dir.ReadFile(name)
	if err != nil {
		return ""
	}
	return entrySum(data)
}
