package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// fileWrite is one file "teammemd service install" writes.
type fileWrite struct {
	path   string
	data   []byte
	mode   os.FileMode
	secret bool // the content is the API token: never printed
}

// apply writes f, or with dry prints it; either way it says what happens.
// A file that already holds the content is left alone.
func (f fileWrite) apply(dry bool, w io.Writer) error {
	switch {
	case sameFile(f.path, f.data):
		fmt.Fprintf(w, "unchanged %s\n", f.path)
		return nil
	case dry && f.secret:
		fmt.Fprintf(w, "would write %s (mode %04o): the API token, not shown\n", f.path, f.mode)
		return nil
	case dry:
		fmt.Fprintf(w, "would write %s (mode %04o):\n%s", f.path, f.mode, indent(f.data))
		return nil
	}
	if err := writeFileMode(f.path, f.data, f.mode); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s\n", f.path)
	return nil
}

// indent prefixes every line of data but empty ones with four spaces.
func indent(data []byte) string {
	var out []byte
	start := true
	for _, b := range data {
		if start && b != '\n' {
			out = append(out, "    "...)
		}
		out = append(out, b)
		start = b == '\n'
	}
	if !start {
		out = append(out, '\n')
	}
	return string(out)
}

// writeFileMode writes path atomically with mode: a temporary file in the
// same directory (created 0700 if missing), fsynced, renamed over path. A
// failure leaves path as it was.
func writeFileMode(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
