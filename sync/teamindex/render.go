package teamindex

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	memsync "github.com/teammemd/teammemd/sync"
)

// The caps of the index: those Claude Code loads an index note with.
const (
	MaxLines = memsync.IndexMaxLines
	MaxBytes = memsync.IndexMaxBytes
)

// How much of a note's name, description and writer a line shows, in
// runes.
const (
	maxName        = 80
	maxDescription = 200
	maxWriter      = 60
)

// Render writes idx, at most MaxLines lines and MaxBytes bytes in all:
// where the team's notes are and how to add one, then one line per note,
// newest change first, as many as fit; a last line says how many older
// notes were left out and where they are, and another how many notes the
// team does not have as they are here.
func Render(w io.Writer, idx Index, now time.Time) error {
	head := header(idx)
	var tail []string
	if idx.Unshared > 0 {
		tail = append(tail, unsharedLine(idx.Unshared))
	}
	if idx.PendingReview > 0 {
		tail = append(tail, reviewLine(idx.PendingReview))
	}
	lines := make([]string, len(idx.Notes))
	for i, n := range idx.Notes {
		lines[i] = noteLine(n, now)
	}
	shown := fit(lines, MaxLines-len(head)-len(tail), MaxBytes-size(head)-size(tail))
	if shown < len(lines) {
		cut := cutLine(len(lines), idx.Dir)
		shown = fit(lines, MaxLines-len(head)-len(tail)-1, MaxBytes-size(head)-size(tail)-size([]string{cut}))
		tail = append([]string{cutLine(len(lines)-shown, idx.Dir)}, tail...)
	}
	out := append(append(head, lines[:shown]...), tail...)
	_, err := io.WriteString(w, strings.Join(out, "\n")+"\n")
	return err
}

// fit returns how many of lines, from the first, fit in maxLines lines
// and maxBytes bytes, each with its newline.
func fit(lines []string, maxLines, maxBytes int) int {
	used := 0
	for i, l := range lines {
		if i >= maxLines || used+len(l)+1 > maxBytes {
			return i
		}
		used += len(l) + 1
	}
	return len(lines)
}

// size is the bytes lines take, each with its newline.
func size(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}

// header says whose notes these are, where they live and how to add one.
func header(idx Index) []string {
	dir := oneLine(idx.Dir, len(idx.Dir))
	h := []string{
		fmt.Sprintf("Team memory of %s: notes shared with every teammate by teammemd, kept in %s", oneLine(idx.Repo, len(idx.Repo)), dir),
		"To record something the whole team should know, write it in that directory: one Markdown file per note, " +
			"starting with frontmatter (---, name: <short name>, description: <one line>, type: project, feedback or reference, ---). " +
			"Never write a secret (a token, password or key) in a team note: teammemd holds such a note back and the team never gets it.",
	}
	if idx.HasIndexNote {
		h = append(h, "MEMORY.md in that directory is the team's own index note.")
	}
	switch {
	case len(idx.Notes) == 0 && idx.HasIndexNote:
		return append(h, "The team has no other notes yet.")
	case len(idx.Notes) == 0:
		return append(h, "The team has no notes yet.")
	}
	return append(h, fmt.Sprintf("%s, newest change first; read a note's file when it bears on the task:", plural(len(idx.Notes), "note", "notes")))
}

// noteLine is one note's line: key, name, description, who and when.
func noteLine(n Note, now time.Time) string {
	var b strings.Builder
	b.WriteString("- " + oneLine(n.Key, len(n.Key)))
	switch name, desc := oneLine(n.Name, maxName), oneLine(n.Description, maxDescription); {
	case name != "" && desc != "":
		b.WriteString(": " + name + " - " + desc)
	case name+desc != "":
		b.WriteString(": " + name + desc)
	}
	if n.By != "" {
		fmt.Fprintf(&b, " (changed by %s %s)", oneLine(n.By, maxWriter), ago(n.Changed, now))
	} else {
		fmt.Fprintf(&b, " (local change %s)", ago(n.Changed, now))
	}
	return b.String()
}

// cutLine says how many older notes are not listed, and where they are.
func cutLine(n int, dir string) string {
	return fmt.Sprintf("%s not listed here; every note is a file in %s (teammemd status shows how the sync is doing).",
		plural(n, "older note is", "older notes are"), oneLine(dir, len(dir)))
}

// unsharedLine counts the notes left out because the team does not have
// them as they are.
func unsharedLine(n int) string {
	return fmt.Sprintf("%s not listed: the team does not have %s as %s here (not pushed yet, or held back; teammemd status says which).",
		plural(n, "local note is", "local notes are"), pick(n, "it", "them"), pick(n, "it is", "they are"))
}

// reviewLine counts the local changes waiting for a reviewer.
func reviewLine(n int) string {
	return fmt.Sprintf("%s for review: the team gets %s once a reviewer approves (teammemd status says which).",
		plural(n, "local change waits", "local changes wait"), pick(n, "it", "them"))
}

// ago says how long before now t was, in words.
func ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute", "minutes") + " ago"
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour", "hours") + " ago"
	}
	return plural(int(d/(24*time.Hour)), "day", "days") + " ago"
}

func plural(n int, one, many string) string { return fmt.Sprintf("%d %s", n, pick(n, one, many)) }

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// oneLine makes s one line of valid UTF-8 of at most max runes: spaces
// and control characters (a newline, say) run together as one space, and
// a YAML block scalar's indicator alone (">", "|-") reads as nothing.
func oneLine(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if strings.Trim(s, ">|+-0123456789") == "" && s != "" && (s[0] == '>' || s[0] == '|') {
		return ""
	}
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
