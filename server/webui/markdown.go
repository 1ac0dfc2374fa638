package webui

import (
	"bytes"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/teammemd/teammemd/server/api"
)

// markdown renders a note's Markdown. Raw HTML is left out (goldmark's
// default: no WithUnsafe) and so are links to javascript:, vbscript:,
// file: and data: URLs other than images. It is built on first use, so
// the processes that link this package without serving pages (the sync
// daemon) never build it.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.GFM))
})

// sanitiser is the second layer over the rendered HTML: the elements and
// attributes user content may have, links only to http, https and mailto,
// opened without the referrer. It is built on first use, like markdown.
var sanitiser = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowURLSchemes("http", "https", "mailto")
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(false)
	return p
})

// field is one frontmatter field.
type field struct{ Name, Value string }

// renderedNote is a note as the page shows it.
type renderedNote struct {
	Fields []field
	// HasFrontmatter is set when the note opens with a frontmatter block.
	HasFrontmatter bool
	Body           template.HTML
}

// renderNote splits a note's frontmatter from its body and renders the
// body as sanitised HTML.
func renderNote(text string) (renderedNote, error) {
	var out renderedNote
	fields, start, ok := api.Frontmatter(text)
	if ok {
		out.HasFrontmatter = true
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			out.Fields = append(out.Fields, field{Name: k, Value: fields[k]})
		}
		text = text[start:]
	}
	html, err := renderMarkdown(text)
	out.Body = html
	return out, err
}

// renderMarkdown renders Markdown as sanitised HTML.
func renderMarkdown(text string) (template.HTML, error) {
	var buf bytes.Buffer
	if err := markdown().Convert([]byte(text), &buf); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	// The sanitiser's output is safe to put in the page as it is.
	return template.HTML(sanitiser().SanitizeBytes(buf.Bytes())), nil //nolint:gosec
}
