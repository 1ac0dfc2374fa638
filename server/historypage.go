package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/store"
)

// historyPage is one page of a history as read without content: its
// revisions, and whether more follow.
type historyPage struct {
	revs []store.Revision
	more bool
}

// errPageFull stops the read of a page at its end.
var errPageFull = errors.New("history page full")

// readHistoryPage reads up to hr.limit revisions without their content. A
// page that carries content ends before the revision whose content would
// bring the page's past MaxHistoryPageBytes; its first revision always
// comes.
func (s *Server) readHistoryPage(ctx context.Context, hr historyRequest) (historyPage, error) {
	q := hr.q
	q.NoContent, q.Limit = true, hr.limit+1
	var page historyPage
	var bytes int64
	err := s.store.History(ctx, q, func(rev store.Revision) error {
		size := sizeOf(rev)
		if len(page.revs) == hr.limit || (hr.content && len(page.revs) > 0 && bytes+size > s.limits.MaxHistoryPageBytes) {
			page.more = true
			return errPageFull
		}
		bytes += size
		page.revs = append(page.revs, rev)
		return nil
	})
	if errors.Is(err, errPageFull) {
		err = nil
	}
	return page, err
}

// sizeOf is the size of a revision's content, 0 for none.
func sizeOf(rev store.Revision) int64 {
	if rev.Size == nil {
		return 0
	}
	return *rev.Size
}

// sendHistoryPage writes page as it goes, one revision at a time: the
// content of each, when asked for, is read on its own just before it is
// written, so the page never holds more than one value and no database
// read waits on a slow client. A read that fails once the answer has begun
// aborts the connection, so the client sees a broken answer, not a short
// one.
func (s *Server) sendHistoryPage(w http.ResponseWriter, r *http.Request, hr historyRequest, page historyPage) {
	hw := startHistory(w, hr.q.Repo, hr.q.Key)
	for _, rev := range page.revs {
		if hr.content && rev.Size != nil {
			var err error
			if rev, err = s.withContent(r.Context(), rev); err != nil {
				s.log.WarnContext(r.Context(), "history page aborted", "repo", hr.q.Repo, "err", err)
				panic(http.ErrAbortHandler)
			}
		}
		if !hw.revision(rev, hr.q.Key == "") {
			return // the client went away
		}
	}
	cursor := ""
	if page.more {
		cursor = nextCursor(page.revs[len(page.revs)-1], hr.q.Key == "")
	}
	hw.end(cursor)
}

// withContent reads rev again with its content. A revision whose content
// went meanwhile (pruned or purged) comes without.
func (s *Server) withContent(ctx context.Context, rev store.Revision) (store.Revision, error) {
	q := store.HistoryQuery{Repo: rev.Repo, Key: rev.Key, Before: rev.Version + 1, Limit: 1}
	out := rev
	out.Size = nil
	err := s.store.History(ctx, q, func(got store.Revision) error {
		if got.Version == rev.Version {
			out = got
		}
		return nil
	})
	return out, err
}

// nextCursor is the cursor of the page after one that ends with last.
func nextCursor(last store.Revision, wholeRepo bool) string {
	cursor := strconv.FormatInt(last.Version, 10)
	if wholeRepo {
		cursor += ":" + last.Key
	}
	return cursor
}

// historyWriter writes a history page's JSON as it goes.
type historyWriter struct {
	w   http.ResponseWriter
	enc *json.Encoder
	n   int
	err error
}

// startHistory sends the status and the page's opening fields.
func startHistory(w http.ResponseWriter, repo, key string) *historyWriter {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	hw := &historyWriter{w: w, enc: json.NewEncoder(w)}
	hw.raw(`{"repo":`)
	hw.value(repo)
	hw.raw(`,"key":`)
	hw.value(key)
	hw.raw(`,"revisions":[`)
	return hw
}

// revision writes one revision, naming its key in a whole repo's history,
// and reports whether the client still takes the answer.
func (hw *historyWriter) revision(rev store.Revision, withKey bool) bool {
	if hw.n > 0 {
		hw.raw(",")
	}
	hw.n++
	out := api.Revision{
		Version: rev.Version, Checksum: rev.Checksum, Deleted: rev.Deleted,
		Subject: rev.Subject, Client: rev.Client, Time: rev.Time.UTC(), Size: rev.Size, Content: rev.Content,
	}
	if withKey {
		out.Key = rev.Key
	}
	hw.value(out)
	return hw.err == nil
}

// end closes the page, with the cursor of the next one unless it is empty.
func (hw *historyWriter) end(cursor string) {
	hw.raw("]")
	if cursor != "" {
		hw.raw(`,"nextCursor":`)
		hw.value(cursor)
	}
	hw.raw("}")
}

func (hw *historyWriter) raw(s string) {
	if hw.err == nil {
		_, hw.err = hw.w.Write([]byte(s))
	}
}

func (hw *historyWriter) value(v any) {
	if hw.err == nil {
		hw.err = hw.enc.Encode(v)
	}
}
