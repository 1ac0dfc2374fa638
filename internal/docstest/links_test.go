package docstest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// Every relative link in README.md and docs/ leads to a file that exists,
// and a link to a heading of a Markdown file to a heading it has. The
// generated references under docs/reference/ count like any other file.
func TestRelativeLinks(t *testing.T) {
	found, err := checkLinks(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

// The check finds a missing file, a missing heading in another file and in
// the same one, and nothing in code, in code spans or outside the module.
func TestCheckLinks(t *testing.T) {
	root := writeTree(t, map[string]string{
		"README.md": "# Top\n\nSee [a](docs/a.md), [its part](docs/a.md#part-two), [gone](docs/gone.md),\n" +
			"[no part](docs/a.md#part-three), [web](https://example.com/x.md) and [mail](mailto:a@example.com).\n" +
			"A span `[x](nothing.md)` and\n\n    [an indented](nothing.md)\n\n```\n[fenced](nothing.md)\n```\n",
		"docs/a.md":     "# A\n\n## Part `two`\n\nBack to [top](../README.md#top), [here](#a), [lost](#b), [dir](sub/).\n",
		"docs/sub/x.md": "x\n",
	})
	got, err := checkLinks(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:3: docs/gone.md: no such file",
		"README.md:4: docs/a.md#part-three: docs/a.md has no heading part-three",
		"docs/a.md:5: #b: docs/a.md has no heading b",
	}
	if !slices.Equal(got, want) {
		t.Errorf("checkLinks = %q\nwant %q", got, want)
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ heading, want string }{
		{"Running the server: `teammemd serve`", "running-the-server-teammemd-serve"},
		{"`[server]` configuration", "server-configuration"},
		{"Logging in with your organisation's identity", "logging-in-with-your-organisations-identity"},
		{"10. History (extension)", "10-history-extension"},
		{"See [the guide](guide.md) now", "see-the-guide-now"},
		{"snake_case and dash-ed", "snake_case-and-dash-ed"},
	}
	for _, tt := range tests {
		if got := slug(tt.heading); got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

// checkLinks returns what is wrong with the relative links of README.md
// and the Markdown files under docs/, one "file:line: target: why" each.
func checkLinks(root string) ([]string, error) {
	files, err := markdownFiles(root)
	if err != nil {
		return nil, err
	}
	var found []string
	for _, file := range files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			return nil, err
		}
		for _, l := range links(string(data)) {
			if why := checkTarget(root, file, l.target); why != "" {
				found = append(found, fmt.Sprintf("%s:%d: %s: %s", file, l.line, l.target, why))
			}
		}
	}
	return found, nil
}

// markdownFiles returns README.md and every .md file under docs/, as slash
// paths relative to root.
func markdownFiles(root string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, err := filepath.Rel(root, path)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	return files, err
}

// checkTarget says what is wrong with a link from file to target, or "".
func checkTarget(root, file, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	dest := file
	if path != "" {
		dest = filepath.ToSlash(filepath.Join(filepath.Dir(file), path))
	}
	if strings.HasPrefix(dest, "../") {
		return "leads out of the module"
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dest)))
	switch {
	case err != nil && !isDir(filepath.Join(root, filepath.FromSlash(dest))):
		return "no such file"
	case anchor == "" || !strings.HasSuffix(dest, ".md"):
		return ""
	case !slices.Contains(anchors(string(data)), anchor):
		return dest + " has no heading " + anchor
	}
	return ""
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// A link found in Markdown text: its line and target.
type mdLink struct {
	line   int
	target string
}

var (
	inlineLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	linkText   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// links returns the inline links of a Markdown text, leaving out those in
// fenced or indented code blocks and in code spans.
func links(text string) []mdLink {
	text = codeSpan.ReplaceAllStringFunc(proseOnly(text), func(span string) string {
		return strings.Repeat("\n", strings.Count(span, "\n"))
	})
	var out []mdLink
	for i, line := range strings.Split(text, "\n") {
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, mdLink{line: i + 1, target: m[1]})
		}
	}
	return out
}

// proseOnly blanks the lines of fenced and indented code blocks, keeping
// the line count.
func proseOnly(text string) string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		fence := strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")
		if fence || fenced || strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			lines[i] = ""
		}
		if fence {
			fenced = !fenced
		}
	}
	return strings.Join(lines, "\n")
}

// anchors returns the anchors GitHub gives the headings of a Markdown
// text, a repeated one with -1, -2, ... after it.
func anchors(text string) []string {
	var out []string
	seen := map[string]int{}
	for line := range strings.SplitSeq(proseOnly(text), "\n") {
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level == 0 || level > 6 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		s := slug(strings.TrimRight(strings.TrimSpace(line[level:]), "#"))
		if n := seen[s]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", s, n))
		} else {
			out = append(out, s)
		}
		seen[s]++
	}
	return out
}

// slug is GitHub's anchor for a heading: lower case, a link's text for the
// link, spaces as dashes, and every other character but letters, digits,
// dashes and underscores left out.
func slug(heading string) string {
	heading = linkText.ReplaceAllString(strings.TrimSpace(heading), "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
