package fsio

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile replaces the file at path with data, with mode perm: a
// temporary file in the same directory, fsynced, renamed over path, and
// the directory fsynced, so that path holds its old content or all of
// data, also after a crash. A missing directory is created (mode 0700).
// It is the one atomic write of a whole file outside a team directory:
// the engine's state, the files "teammemd service install" writes.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return writeFile(path, data, perm, true)
}

// ReplaceFile is WriteFile without its fsyncs, for a file that is made
// again when lost: a reader sees the old content or all of data, but a
// crash may take the new content back or, on some file systems, leave
// the file empty or missing.
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	return writeFile(path, data, perm, false)
}

func writeFile(path string, data []byte, perm os.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer root.Close()
	name := filepath.Base(path)
	if err := renameInto(root, name, data, perm, durable); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := exactMode(root, name, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !durable {
		return nil
	}
	return SyncDir(root, ".")
}

// exactMode gives name the mode perm where the umask narrowed it.
func exactMode(root *os.Root, name string, perm os.FileMode) error {
	fi, err := root.Stat(name)
	if err != nil || fi.Mode().Perm() == perm {
		return err
	}
	return root.Chmod(name, perm)
}
