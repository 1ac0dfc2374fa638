package api

import "strings"

// What Claude Code reads of a team directory. MEMORY.md is the index,
// loaded into every session up to IndexMaxLines lines and IndexMaxBytes
// bytes; every other note is a topic note, skipped over NoteMaxBytes. The
// daemon's guards, the session-start index and the server's web view all
// take the caps from here.

// IndexKey is the key of the team directory's index note.
const IndexKey = "MEMORY.md"

// How much of the index Claude Code loads.
const (
	IndexMaxLines = 200
	IndexMaxBytes = 25_000
)

// NoteMaxBytes is the largest memory file Claude Code 2.1.210 and later
// load; they skip a bigger one.
const NoteMaxBytes = 102_400

// IndexLoaded returns how many bytes of an index note Claude Code loads:
// the first IndexMaxLines lines, and of those at most IndexMaxBytes bytes.
func IndexLoaded(data []byte) int {
	loaded := len(data)
	if i := nthNewline(data, IndexMaxLines); i >= 0 && i+1 < loaded {
		loaded = i + 1
	}
	return min(loaded, IndexMaxBytes)
}

// nthNewline returns the index of the n-th newline of data, or -1.
func nthNewline(data []byte, n int) int {
	for i, b := range data {
		if b == '\n' {
			if n--; n == 0 {
				return i
			}
		}
	}
	return -1
}

// Frontmatter returns the top-level "name: value" fields of the block
// between a note's first line "---" and the next "---" (an indented line's
// as parent.key), where the body after it starts, and whether there is
// one.
func Frontmatter(text string) (fields map[string]string, body int, ok bool) {
	start := len(text) - len(strings.TrimPrefix(text, "\ufeff"))
	line, rest, _ := strings.Cut(text[start:], "\n")
	if strings.TrimRight(line, "\r \t") != "---" {
		return nil, 0, false
	}
	fields = map[string]string{}
	parent := "" // the top-level key an indented line belongs to
	for rest != "" {
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimRight(line, "\r")
		if strings.TrimRight(line, " \t") == "---" {
			promoteMetadata(fields)
			return fields, len(text) - len(rest), true
		}
		if line == "" || strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, value := strings.TrimSpace(k), unquote(strings.TrimSpace(v))
		switch {
		case line[0] != ' ' && line[0] != '\t':
			fields[key], parent = value, key
		case parent != "":
			fields[parent+"."+key] = value
		}
	}
	return nil, 0, false
}

// promoteMetadata takes the type from the metadata block, where current
// Claude Code versions write it (metadata:\n  type: project), when the
// top level gives none.
func promoteMetadata(fields map[string]string) {
	if fields["type"] == "" && fields["metadata.type"] != "" {
		fields["type"] = fields["metadata.type"]
	}
}

// unquote strips one pair of matching YAML quotes.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
