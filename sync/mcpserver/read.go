package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/teammemd/teammemd/server/api"
)

type readIn struct {
	Repo      string `json:"repo,omitempty" jsonschema:"repo slug; default: the repo of the client's working directory"`
	Key       string `json:"key" jsonschema:"the note's path in the team directory, such as db/postgres.md"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line to return, from 1; default 1"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line to return; default: the last"`
}

type readOut struct {
	Key        string `json:"key"`
	SHA256     string `json:"sha256" jsonschema:"of the whole note, whatever the range: the precondition of a write or delete"`
	Content    string `json:"content"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	TotalLines int    `json:"total_lines"`
	URI        string `json:"uri"`
}

func (t *tools) read(ctx context.Context, req *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, readOut, error) {
	sp, err := t.b.Space(ctx, req, in.Repo)
	if err != nil {
		return nil, readOut{}, err
	}
	data, err := readNote(sp, in.Key)
	if err != nil {
		return nil, readOut{}, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start, end, err := lineRange(in.StartLine, in.EndLine, len(lines))
	if err != nil {
		return nil, readOut{}, fmt.Errorf("%s: %w", in.Key, err)
	}
	return nil, readOut{Key: in.Key, SHA256: api.EntryChecksumBytes(data), Content: strings.Join(lines[start-1:end], ""),
		StartLine: start, EndLine: end, TotalLines: len(lines), URI: noteURI(sp.Repo(), in.Key)}, nil
}

// readNote reads key's note, saying which repo lacks it.
func readNote(sp Space, key string) ([]byte, error) {
	data, err := sp.Read(key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no note %s (memory_list lists them)", sp.Repo(), key)
	}
	return data, err
}

// lineRange resolves a requested range of lines, 0 meaning the first or
// the last, against a note of total lines.
func lineRange(start, end, total int) (int, int, error) {
	start = max(start, 1)
	if end == 0 || end > total {
		end = total
	}
	switch {
	case total == 0:
		return 1, 0, nil
	case start > total:
		return 0, 0, fmt.Errorf("start_line %d is past the last line, %d", start, total)
	case end < start:
		return 0, 0, fmt.Errorf("end_line %d is before start_line %d", end, start)
	}
	return start, end, nil
}
