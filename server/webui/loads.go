package webui

import (
	"net/http"
	"strings"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// loadsPage shows what Claude Code will load of a repo's notes: the index
// note as far as its caps reach, and the notes it skips for their size.
type loadsPage struct {
	Repo, IndexKey                   string
	MaxLines, MaxBytes, NoteMaxBytes int
	HasIndex                         bool
	IndexLines, IndexBytes           int
	// Loaded and Cut are the index note's text Claude Code loads, and
	// the rest.
	Loaded, Cut        string
	CutLines, CutBytes int
	Skipped            []skippedNote
}

// skippedNote is a note over the size Claude Code loads.
type skippedNote struct {
	Key   string
	Bytes int
}

func (u *UI) serveLoads(w http.ResponseWriter, r *http.Request, s *session) {
	repo, err := u.repoParam(r, s, store.LevelRead)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	snap, err := u.snapshot(r.Context(), repo)
	if err != nil {
		u.fail(w, r, s, err)
		return
	}
	page := loadsPage{Repo: repo, IndexKey: api.IndexKey, MaxLines: api.IndexMaxLines, MaxBytes: api.IndexMaxBytes,
		NoteMaxBytes: api.NoteMaxBytes}
	if index, ok := snap.Entries[api.IndexKey]; ok {
		page.HasIndex, page.IndexBytes, page.IndexLines = true, len(index), countLines(index)
		n := api.IndexLoaded([]byte(index))
		page.Loaded, page.Cut = index[:n], index[n:]
		page.CutBytes, page.CutLines = len(page.Cut), page.IndexLines-strings.Count(page.Loaded, "\n")
		if page.CutBytes == 0 {
			page.CutLines = 0
		}
	}
	for _, key := range sortedKeys(snap.Entries) {
		if v := snap.Entries[key]; len(v) > api.NoteMaxBytes {
			page.Skipped = append(page.Skipped, skippedNote{Key: key, Bytes: len(v)})
		}
	}
	u.page(w, r, s, "loads", "What Claude Code will load of "+repo, page)
}

// countLines counts s's lines, a last one without a newline included.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
