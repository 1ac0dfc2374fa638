package webui_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/internal/lockedbuf"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// Each page a signed-in user asks for is logged with their subject and
// sign-in mode, as an API request is, so the web view's activity can be
// tied to a person in the access log.
func TestAccessLogNamesTheSessionsSubject(t *testing.T) {
	var logs lockedbuf.Buffer
	srv := startServer(t, servertest.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	alice := signedIn(t, srv, "alice", store.Grant{Pattern: "acme/**", Level: store.LevelRead})
	before := len(logs.String())
	alice.get("/ui/")
	var pages int
	for _, line := range strings.Split(strings.TrimSpace(logs.String()[before:]), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["msg"] != "request" {
			continue
		}
		pages++
		if rec["route"] != "ui" || rec["subject"] != "alice" || rec["mode"] != "token" {
			t.Errorf("access log line of a signed-in page = %v, want route ui, subject alice, mode token", rec)
		}
	}
	if pages == 0 {
		t.Fatalf("no access log line for the page:\n%s", logs.String())
	}
}
