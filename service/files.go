package service

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/teammemd/teammemd/sync/fsio"
)

// FileWrite is one file install writes.
type FileWrite struct {
	Path   string
	Data   []byte
	Mode   os.FileMode
	Secret bool // the content is the API token: never printed
}

// Apply writes f, or with dry prints it; either way it says what happens.
// A file that already holds the content is left alone.
func (f FileWrite) Apply(dry bool, w io.Writer) error {
	switch {
	case sameFile(f.Path, f.Data):
		fmt.Fprintf(w, "unchanged %s\n", f.Path)
		return nil
	case dry && f.Secret:
		fmt.Fprintf(w, "would write %s (mode %04o): the API token, not shown\n", f.Path, f.Mode)
		return nil
	case dry:
		fmt.Fprintf(w, "would write %s (mode %04o):\n%s", f.Path, f.Mode, indent(f.Data))
		return nil
	}
	if err := fsio.WriteFile(f.Path, f.Data, f.Mode); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s\n", f.Path)
	return nil
}

// describe names the file for the user: the token file or the config.
func (f FileWrite) describe() string {
	if f.Secret {
		return "the token file " + f.Path
	}
	return "the config " + f.Path
}

// sameFile reports whether path holds exactly data.
func sameFile(path string, data []byte) bool {
	old, err := os.ReadFile(path)
	return err == nil && bytes.Equal(old, data)
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
