package main

import (
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/api"
)

// TestPrintHistoryClient: the client column shows what the server
// recorded, a terminal escape in it shown as text, and "-" for none.
func TestPrintHistoryClient(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	revs := []api.Revision{
		{Key: "a.md", Version: 2, Deleted: true, Subject: "ann", Client: "oidc via evil\x1b[2J", Time: at},
		{Key: "a.md", Version: 1, Checksum: "sha256:" + strings.Repeat("ab", 32), Subject: "bob", Time: at},
	}
	var b strings.Builder
	if err := printHistory(&b, revs, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		`VERSION  TIME                  AUTHOR  SIZE     CHECKSUM      KEY   CLIENT`,
		`2        2026-11-22 10:00:00Z  ann     deleted  -             a.md  oidc via evil\x1b[2J`,
		`1        2026-11-22 10:00:00Z  bob     pruned   abababababab  a.md  -`,
	}
	if len(lines) != len(want) {
		t.Fatalf("printHistory = %q, want %d lines", b.String(), len(want))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("printHistory line %d = %q, want %q", i, lines[i], want[i])
		}
	}
}
