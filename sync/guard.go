package memsync

import (
	"fmt"
	"slices"
	"strings"

	"github.com/teammemd/teammemd/server/api"
)

// The guards for what Claude Code reads from a team directory. Its own
// rules: MEMORY.md is the index, loaded into every session up to
// IndexMaxLines lines and IndexMaxBytes bytes; every other note is a topic
// note whose frontmatter names it, describes it and gives its type, one of
// NoteTypes; a note of type "user" is about one person and stays private.

// IndexKey is the key of the team directory's index note.
const IndexKey = api.IndexKey

// How much of the index Claude Code loads.
const (
	IndexMaxLines = api.IndexMaxLines
	IndexMaxBytes = api.IndexMaxBytes
)

// NoteMaxBytes is the largest memory file Claude Code 2.1.210 and later
// load; they skip a bigger one.
const NoteMaxBytes = api.NoteMaxBytes

// NoteTypes are the types a note's frontmatter may give.
var NoteTypes = []string{"user", "feedback", "project", "reference"}

// personalType is the type of a note about one person.
const personalType = "user"

// heldPersonal is why a note of type user is held back from the push.
const heldPersonal = "type: user is a personal note by Claude Code's rules; not shared with the team (set [client] share_user_notes = true to share such notes)"

// requiredFields are the frontmatter fields Claude Code expects in a topic
// note.
var requiredFields = []string{"name", "description", "type"}

// Warning is something in a note that Claude Code will not read as meant.
// It never holds the note's content.
type Warning struct {
	Key     string
	Message string
}

// NoteCheck is what the guards found in one note.
type NoteCheck struct {
	// Personal is set for a note of type user.
	Personal bool
	// Warnings say what Claude Code will cut or misread.
	Warnings []string
}

// guardEntry is the guards' verdict on one content of a key, kept while
// the file keeps that content so an unchanged note is not read again.
type guardEntry struct {
	hash  string
	check NoteCheck
}

// CheckNote runs the guards on one note, key and content.
func CheckNote(key string, data []byte) NoteCheck {
	c := checkContent(key, data)
	if len(data) > NoteMaxBytes {
		c.Warnings = append([]string{fmt.Sprintf("%d bytes: Claude Code 2.1.210 and later do not load a memory file over %d bytes; split it into smaller notes",
			len(data), NoteMaxBytes)}, c.Warnings...)
	}
	return c
}

// checkContent runs the guards on what a note says.
func checkContent(key string, data []byte) NoteCheck {
	if key == IndexKey {
		return NoteCheck{Warnings: checkIndex(data)}
	}
	if !strings.HasSuffix(key, ".md") {
		return NoteCheck{}
	}
	fields, ok := frontmatter(string(data))
	if !ok {
		return NoteCheck{Warnings: []string{"no frontmatter: Claude Code expects name, description and type between --- lines at the top"}}
	}
	var c NoteCheck
	var missing []string
	for _, f := range requiredFields {
		if fields[f] == "" {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		c.Warnings = append(c.Warnings, "frontmatter lacks "+strings.Join(missing, ", ")+": Claude Code expects name, description and type")
	}
	switch t := fields["type"]; {
	case t == personalType:
		c.Personal = true
	case t != "" && !slices.Contains(NoteTypes, t):
		c.Warnings = append(c.Warnings, fmt.Sprintf("unknown type %q: Claude Code knows %s", t, strings.Join(NoteTypes, ", ")))
	}
	return c
}

// checkIndex warns when Claude Code cuts the index: it loads the first
// IndexMaxLines lines, and of those at most IndexMaxBytes bytes.
func checkIndex(data []byte) []string {
	loaded := api.IndexLoaded(data)
	if loaded == len(data) {
		return nil
	}
	lines := countLines(data)
	kept := strings.Count(string(data[:loaded]), "\n")
	return []string{fmt.Sprintf("%d lines, %d bytes: Claude Code loads the first %d lines and %d bytes, so the last %d lines (%d bytes) are cut",
		lines, len(data), IndexMaxLines, IndexMaxBytes, lines-kept, len(data)-loaded)}
}

// countLines counts data's lines, a last one without a newline included.
func countLines(data []byte) int {
	n := strings.Count(string(data), "\n")
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// frontmatter returns the top-level fields of a note's frontmatter, and
// whether it has one.
func frontmatter(text string) (map[string]string, bool) {
	fields, _, ok := api.Frontmatter(text)
	return fields, ok
}

// NoteFields returns the name and description the frontmatter at the head
// of a note gives; empty when it gives none.
func NoteFields(head []byte) (name, description string) {
	fields, _ := frontmatter(string(head))
	return fields["name"], fields["description"]
}
