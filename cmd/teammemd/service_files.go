package main

import (
	"fmt"
	"io"
	"os"

	"github.com/teammemd/teammemd/sync/fsio"
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
	if err := fsio.WriteFile(f.path, f.data, f.mode); err != nil {
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
