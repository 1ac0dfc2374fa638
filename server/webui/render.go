package webui

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// view is what every page template gets: the layout's fields and the
// page's own.
type view struct {
	Title   string
	Subject string
	Admin   bool
	CSRF    string
	Page    any
}

// pageError is a page's failure as the browser sees it.
type pageError struct {
	status int
	msg    string
}

func (e *pageError) Error() string { return e.msg }

// notFound is the answer for a repo, note or page that is not there or
// that the grants do not show: the same either way.
func notFound() *pageError {
	return &pageError{status: http.StatusNotFound, msg: "not found: no such repo or note, or your grants do not show it"}
}

// templateFuncs are the helpers the templates use.
var templateFuncs = template.FuncMap{
	"time": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"via":  via,
}

// parsePages parses every page template with the layout.
func parsePages() (map[string]*template.Template, error) {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("list templates: %w", err)
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(templateFuncs).ParseFS(templateFiles, "templates/layout.html", n)
		if err != nil {
			return nil, fmt.Errorf("parse template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// render writes page with v, or an error page if it cannot be rendered.
func (u *UI) render(w http.ResponseWriter, r *http.Request, status int, page string, v *view) {
	var buf bytes.Buffer
	if err := u.pages[page].Execute(&buf, v); err != nil {
		u.log.ErrorContext(r.Context(), "render page", "page", page, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// page renders a page of a signed-in browser.
func (u *UI) page(w http.ResponseWriter, r *http.Request, s *session, name, title string, data any) {
	u.render(w, r, http.StatusOK, name, u.viewFor(s, title, data))
}

func (u *UI) viewFor(s *session, title string, data any) *view {
	v := &view{Title: title, Page: data}
	if s != nil && s.Subject != "" {
		v.Subject, v.CSRF, v.Admin = s.Subject, s.CSRF, u.isAdmin(s)
	}
	return v
}

// fail answers err: a pageError as it says; a write the store refused
// because its storage is full, logged, as the API's 507 says it; anything
// else as a server fault, logged, whose detail the browser is not shown.
func (u *UI) fail(w http.ResponseWriter, r *http.Request, s *session, err error) {
	var pe *pageError
	var apiErr *api.Error
	switch {
	case errors.As(err, &pe):
	case errors.As(err, &apiErr):
		pe = &pageError{status: apiErr.Status, msg: apiErr.Message}
	case errors.Is(err, store.ErrFull):
		u.log.ErrorContext(r.Context(), "write refused: the store's storage is full", "path", r.URL.Path, "err", err)
		full := api.StorageFull()
		pe = &pageError{status: full.Status, msg: full.Message}
	default:
		u.log.ErrorContext(r.Context(), "web view failed", "path", r.URL.Path, "err", err)
		pe = &pageError{status: http.StatusInternalServerError, msg: "the server failed to answer this page; try again, or ask its operator to look at its log"}
	}
	u.render(w, r, pe.status, "error", u.viewFor(s, "Error", pe.msg))
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// via says what vouched for the writer a history subject names: the
// subject's prefix for the identity services, a purge, else an API token,
// whose subject names the person or machine it was made for.
func via(subject string) string {
	prefix, _, ok := strings.Cut(subject, ":")
	switch {
	case !ok:
		return "API token"
	case prefix == "oidc":
		return "OpenID Connect login"
	case prefix == "github":
		return "GitHub token"
	case prefix == "claude":
		return "Claude account"
	case prefix == "purge":
		return "purge by an admin"
	}
	return "API token"
}
