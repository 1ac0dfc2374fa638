package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"
)

// noteKey maps p onto the key of a note, refusing /memories itself.
func noteKey(p string) (string, error) {
	key, err := memoryKey(p)
	if err == nil && key == "" {
		err = fmt.Errorf("%s is the memory directory, not a file", memoriesRoot)
	}
	return key, err
}

// create writes a new file; one that exists is refused.
func (m memoryOp) create(ctx context.Context, p, text string) (string, error) {
	key, err := noteKey(p)
	if err != nil {
		return "", err
	}
	if m.kind(key) == "dir" {
		return "", fmt.Errorf("%s is a directory", p)
	}
	_, err = m.sp.Put(ctx, key, []byte(text), "")
	var se *memsync.StaleError
	if errors.As(err, &se) {
		return "", toolErrorf("File %s already exists", p)
	}
	if err != nil {
		return "", err
	}
	return "File created successfully at: " + p, nil
}

// edit reads key's note, changes it with fn and writes it back on the
// condition that it is still the version read.
func (m memoryOp) edit(ctx context.Context, p string, fn func(string) (string, error)) (string, error) {
	key, err := noteKey(p)
	if err != nil {
		return "", err
	}
	if m.kind(key) != "file" {
		return "", toolErrorf("The path %s does not exist or is not a file. Please provide a valid path.", p)
	}
	data, err := readNote(m.sp, key)
	if err != nil {
		return "", err
	}
	text, err := fn(string(data))
	if err != nil {
		return "", err
	}
	if _, err := m.sp.Put(ctx, key, []byte(text), api.EntryChecksumBytes(data)); err != nil {
		return "", err
	}
	return text, nil
}

// strReplace replaces old, which must appear exactly once, with repl.
func (m memoryOp) strReplace(ctx context.Context, p, old, repl string) (string, error) {
	line := 0
	text, err := m.edit(ctx, p, func(cur string) (string, error) {
		if old == "" {
			return "", toolErrorf("No replacement was performed: old_str is empty")
		}
		switch at := matchLines(cur, old); len(at) {
		case 0:
			return "", toolErrorf("No replacement was performed, old_str `%s` did not appear verbatim in %s.", old, p)
		case 1:
			line = at[0]
		default:
			return "", toolErrorf("No replacement was performed. Multiple occurrences of old_str `%s` in lines: %s. Please ensure it is unique", old, joinInts(at))
		}
		return strings.Replace(cur, old, repl, 1), nil
	})
	if err != nil {
		return "", err
	}
	lines := strings.Split(text, "\n")
	from := max(1, line-2)
	to := min(len(lines), line+2)
	return "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n" +
		numbered(lines[from-1:to], from), nil
}

// matchLines returns the 1-based line of each occurrence of old in s.
func matchLines(s, old string) []int {
	var at []int
	for i := 0; ; i++ {
		j := strings.Index(s[i:], old)
		if j < 0 {
			return at
		}
		i += j
		at = append(at, strings.Count(s[:i], "\n")+1)
	}
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// insert puts text after line n, 0 for the top.
func (m memoryOp) insert(ctx context.Context, p string, n int, text string) (string, error) {
	_, err := m.edit(ctx, p, func(cur string) (string, error) {
		lines := strings.Split(strings.TrimSuffix(cur, "\n"), "\n")
		if cur == "" {
			lines = nil
		}
		if n < 0 || n > len(lines) {
			return "", toolErrorf("Invalid `insert_line` parameter: %d. It should be within the range [0, %d].", n, len(lines))
		}
		lines = append(lines[:n], append([]string{strings.TrimRight(text, "\n")}, lines[n:]...)...)
		return strings.Join(lines, "\n") + "\n", nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("The file %s has been edited.", p), nil
}
