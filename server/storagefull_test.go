package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// logRecords returns the records of a JSON log with message msg.
func logRecords(t *testing.T, logs *lockedbuf.Buffer, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// A server whose database is full refuses writes with 507 and the
// protocol's error, logged once with the store's error; /readyz says so
// while /livez does not. Once there is room the same write succeeds,
// /readyz answers 200 again, and nothing written before was lost.
func TestFullStorageRefusesWritesWith507(t *testing.T) {
	var logs lockedbuf.Buffer
	s := servertest.Start(t, servertest.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	ctx := context.Background()
	want := map[string]string{"kept.md": "written before the disk filled"}
	put(t, s, repo, want)
	pages, err := s.Store.LimitPages(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}

	value := strings.Repeat("x", 6000)
	var refused reply
	var key string
	for i := 0; refused.status == 0; i++ {
		if i == 2000 {
			t.Fatal("2000 writes fitted under the page cap")
		}
		key = fmt.Sprintf("n%d.md", i)
		r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: putBody(t, map[string]string{key: value})})
		if r.status != http.StatusOK {
			refused = r
			break
		}
		want[key] = value
	}
	ae := refused.apiError()
	if refused.status != http.StatusInsufficientStorage || ae.Code != api.CodeStorageFull || ae.Kind != api.KindAPI ||
		!strings.Contains(ae.Message, "storage is full") || !strings.Contains(ae.Message, "nothing was written") {
		t.Fatalf("PUT past the page cap = %d %s; want 507 %s saying the storage is full and nothing was written", refused.status, refused.body, api.CodeStorageFull)
	}
	recs := logRecords(t, &logs, "write refused: the store's storage is full")
	if len(recs) != 1 || recs[0]["level"] != "ERROR" || !strings.Contains(fmt.Sprint(recs[0]["err"]), "database or disk is full") {
		t.Errorf("log of the refusal = %v; want one ERROR record with SQLite's error", recs)
	}
	if recs := logRecords(t, &logs, "request failed"); len(recs) != 0 {
		t.Errorf("the refusal was also logged as a failed request: %v", recs)
	}
	r := do(t, s.URL, req{path: "/readyz"})
	if e := r.apiError(); r.status != http.StatusServiceUnavailable || !strings.Contains(e.Message, "storage is full") || r.header.Get("Retry-After") == "" {
		t.Errorf("GET /readyz on a full storage = %d %s (Retry-After %q); want 503 saying the storage is full", r.status, r.body, r.header.Get("Retry-After"))
	}
	if r := do(t, s.URL, req{path: "/livez"}); r.status != http.StatusOK {
		t.Errorf("GET /livez on a full storage = %d, want 200", r.status)
	}

	if _, err := s.Store.LimitPages(ctx, pages+100000); err != nil {
		t.Fatal(err)
	}
	if r := do(t, s.URL, req{path: "/readyz"}); r.status != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz with room but no write since = %d, want 503 until a write succeeds", r.status)
	}
	put(t, s, repo, map[string]string{key: value})
	want[key] = value
	if r := do(t, s.URL, req{path: "/readyz"}); r.status != http.StatusOK {
		t.Errorf("GET /readyz after a write succeeded = %d %s, want 200", r.status, r.body)
	}
	got := getFull(t, s, repo).Content.Entries
	if len(got) != len(want) {
		t.Fatalf("repo holds %d entries after room came back, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("entry %s = %d bytes after room came back, want %d", k, len(got[k]), len(v))
		}
	}
}

// On PostgreSQL a write refused with disk_full is the same 507, and
// /readyz says so until a write succeeds once there is room.
func TestDiskFullPostgresRefusesWritesWith507(t *testing.T) {
	db := pgtest.Schema(t)
	s := servertest.StartPostgres(t, db)
	if r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: putBody(t, map[string]string{"kept.md": "before"})}); r.status != http.StatusOK {
		t.Fatalf("first PUT = %d %s, want 200", r.status, r.body)
	}
	room := pgtest.DiskFull(t, db, "revisions")

	r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: putBody(t, map[string]string{"new.md": "after"})})
	if r.status != http.StatusInsufficientStorage || r.errorCode() != api.CodeStorageFull {
		t.Fatalf("PUT on a full disk = %d %s, want 507 %s", r.status, r.body, api.CodeStorageFull)
	}
	if r := do(t, s.URL, req{path: "/readyz"}); r.status != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz on a full disk = %d, want 503", r.status)
	}
	room()
	if r := do(t, s.URL, req{method: http.MethodPut, repo: repo, token: s.Token, body: putBody(t, map[string]string{"new.md": "after"})}); r.status != http.StatusOK {
		t.Fatalf("PUT once there is room = %d %s, want 200", r.status, r.body)
	}
	if r := do(t, s.URL, req{path: "/readyz"}); r.status != http.StatusOK {
		t.Errorf("GET /readyz after a write succeeded = %d %s, want 200", r.status, r.body)
	}
	r = do(t, s.URL, req{repo: repo, token: s.Token})
	var full api.FullResponse
	decode(t, r, &full)
	if e := full.Content.Entries; e["kept.md"] != "before" || e["new.md"] != "after" {
		t.Errorf("repo after room came back = %v, want kept.md and new.md", e)
	}
}
