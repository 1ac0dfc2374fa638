package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// memoryIn is the input of Anthropic's memory tool (memory_20250818),
// every command's fields in one object, and the repo.
type memoryIn struct {
	Command    string `json:"command" jsonschema:"view, create, str_replace, insert, delete or rename"`
	Path       string `json:"path,omitempty" jsonschema:"a path under /memories (all but rename)"`
	ViewRange  []int  `json:"view_range,omitempty" jsonschema:"view: [first, last] line, last -1 for the end"`
	FileText   string `json:"file_text,omitempty" jsonschema:"create: the file's content"`
	OldStr     string `json:"old_str,omitempty" jsonschema:"str_replace: text that appears exactly once"`
	NewStr     string `json:"new_str,omitempty" jsonschema:"str_replace: its replacement"`
	InsertLine int    `json:"insert_line,omitempty" jsonschema:"insert: the line after which to insert, 0 for the top"`
	InsertText string `json:"insert_text,omitempty" jsonschema:"insert: the text to insert"`
	OldPath    string `json:"old_path,omitempty" jsonschema:"rename: the file or directory to move"`
	NewPath    string `json:"new_path,omitempty" jsonschema:"rename: where to"`
	Repo       string `json:"repo,omitempty" jsonschema:"repo slug; default: the repo of the client's working directory"`
}

// memoryCommands are the memory tool's commands.
var memoryCommands = []string{"view", "create", "str_replace", "insert", "delete", "rename"}

// addMemoryTool registers the memory tool, its command an enum.
func (t *tools) addMemoryTool() error {
	in, err := jsonschema.For[memoryIn](nil)
	if err != nil {
		return fmt.Errorf("memory tool schema: %w", err)
	}
	in.Properties["command"].Enum = make([]any, len(memoryCommands))
	for i, c := range memoryCommands {
		in.Properties["command"].Enum[i] = c
	}
	mcp.AddTool(t.srv, &mcp.Tool{Name: "memory", InputSchema: in,
		Description: "Anthropic's memory tool on the team's notes: /memories is the team directory, shared with teammates by the sync daemon. " +
			"Commands: view {path, view_range}, create {path, file_text}, str_replace {path, old_str, new_str}, " +
			"insert {path, insert_line, insert_text}, delete {path}, rename {old_path, new_path}. Files are .md or .txt; a file holding a secret is refused."},
		t.memory)
	return nil
}

func (t *tools) memory(ctx context.Context, req *mcp.CallToolRequest, in memoryIn) (*mcp.CallToolResult, any, error) {
	sp, err := t.b.Space(ctx, req, in.Repo)
	if err != nil {
		return nil, nil, err
	}
	m := memoryOp{sp: sp}
	var text string
	switch in.Command {
	case "view":
		text, err = m.view(in.Path, in.ViewRange)
	case "create":
		text, err = m.create(ctx, in.Path, in.FileText)
	case "str_replace":
		text, err = m.strReplace(ctx, in.Path, in.OldStr, in.NewStr)
	case "insert":
		text, err = m.insert(ctx, in.Path, in.InsertLine, in.InsertText)
	case "delete":
		text, err = m.delete(ctx, in.Path)
	case "rename":
		text, err = m.rename(ctx, in.OldPath, in.NewPath)
	default:
		err = fmt.Errorf("unknown command %q: want one of %s", in.Command, strings.Join(memoryCommands, ", "))
	}
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// memoryOp runs one memory tool command on one team directory.
type memoryOp struct {
	sp Space
}

// kind says what a key is: a note, a directory of notes, or nothing; the
// root is always a directory.
func (m memoryOp) kind(key string) string {
	if key == "" {
		return "dir"
	}
	if _, _, ok := m.sp.Index().Get(key); ok {
		return "file"
	}
	if len(m.sp.Index().Notes(key+"/")) > 0 {
		return "dir"
	}
	return ""
}

// view lists a directory two levels deep, or shows a file with line
// numbers, all of it or view_range.
func (m memoryOp) view(p string, viewRange []int) (string, error) {
	key, err := memoryKey(p)
	if err != nil {
		return "", err
	}
	switch m.kind(key) {
	case "dir":
		return m.viewDir(p, key), nil
	case "file":
		return m.viewFile(p, key, viewRange)
	}
	return "", toolErrorf("The path %s does not exist. Please provide a valid path.", p)
}

// viewDir lists the notes and directories up to two levels below key,
// each with its size (a directory's is that of the notes in it).
func (m memoryOp) viewDir(p, key string) string {
	prefix := ""
	if key != "" {
		prefix = key + "/"
	}
	sizes := map[string]int64{}
	var total int64
	for _, n := range m.sp.Index().Notes(prefix) {
		total += n.Size
		segs := strings.Split(n.Key[len(prefix):], "/")
		for i := 1; i < min(len(segs), 3); i++ {
			sizes[strings.Join(segs[:i], "/")+"/"] += n.Size
		}
		if len(segs) <= 2 {
			sizes[strings.Join(segs, "/")] += n.Size
		}
	}
	lines := []string{fmt.Sprintf("Here're the files and directories up to 2 levels deep in %s, excluding hidden items:", p),
		humanSize(total) + "\t" + strings.TrimSuffix(p, "/")}
	for _, e := range slices.Sorted(maps.Keys(sizes)) {
		lines = append(lines, humanSize(sizes[e])+"\t"+memoryPath(prefix+e))
	}
	return strings.Join(lines, "\n")
}

// viewFile shows key's content with line numbers.
func (m memoryOp) viewFile(p, key string, viewRange []int) (string, error) {
	data, err := readNote(m.sp, key)
	if err != nil {
		return "", err
	}
	lines := strings.Split(string(data), "\n")
	from := 1
	if len(viewRange) == 2 {
		start, end := max(1, viewRange[0]), viewRange[1]
		if end == -1 || end > len(lines) {
			end = len(lines)
		}
		if start > end {
			return "", toolErrorf("Invalid view_range %v: the file has %d lines", viewRange, len(lines))
		}
		lines, from = lines[start-1:end], start
	} else if len(viewRange) != 0 {
		return "", toolErrorf("Invalid view_range %v: want [first, last]", viewRange)
	}
	return fmt.Sprintf("Here's the content of %s with line numbers:\n%s", p, numbered(lines, from)), nil
}
