package personal_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
	memsync "github.com/teammemd/teammemd/sync"
	"github.com/teammemd/teammemd/sync/claude/claudetest"
	"github.com/teammemd/teammemd/sync/personal"
	"github.com/teammemd/teammemd/sync/personal/personaltest"
)

// marker is in a private note's name and in its content; it must never be
// in the server's database, in any form the database keeps it.
const marker = "zebracornflakes7319"

// syncMarked seals and pushes, through a real lane engine, notes whose
// names and contents hold marker, edits one and deletes another, and
// checks that a second machine reads them back: the lane works, so the
// database was written.
func syncMarked(t *testing.T, url, token string) {
	t.Helper()
	k, err := personal.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	personaltest.Init(t, url, token, k)
	open := func() (*memsync.Engine, string) {
		mem := filepath.Join(t.TempDir(), "memory")
		c, err := memsync.NewClient(url, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}),
			memsync.WithRetry(1, time.Millisecond, 5*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		cfg := personal.LaneConfig{Dir: mem, Project: "acme/" + marker, Files: memsync.ProjectMemory, Server: url, StateDir: t.TempDir()}
		eng, _, err := personal.OpenLane(cfg, personal.Keys{Current: k}, c, memsync.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return eng, mem
	}
	a, memA := open()
	claudetest.WriteNote(t, memA, marker+".md", "---\nname: "+marker+"\ntype: user\n---\n"+marker+" in the body\n")
	claudetest.WriteNote(t, memA, "sub/"+marker+"-gone.md", marker+" soon deleted\n")
	claudetest.WriteNote(t, memA, "plain.md", "a line that names "+marker+"\n")
	ctx := context.Background()
	if _, err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	claudetest.WriteNote(t, memA, "plain.md", "edited, still naming "+marker+"\n")
	if err := os.Remove(filepath.Join(memA, "sub", marker+"-gone.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	b, memB := open()
	if _, err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := claudetest.ReadNote(t, memB, "plain.md"); got != "edited, still naming "+marker+"\n" {
		t.Fatalf("the second machine reads plain.md = %q: the lane did not carry the notes", got)
	}
}

// TestNoPlaintextInSQLite: the database file and its log, read as bytes,
// hold neither a name nor a line of a private note. A team note with the
// marker, written the same way, is found there, so the search can fail.
func TestNoPlaintextInSQLite(t *testing.T) {
	srv := servertest.Start(t)
	syncMarked(t, srv.URL, srv.CreateToken(t, "alice"))
	if db := servertest.FileBytes(t, srv.Path); bytes.Contains(db, []byte(marker)) {
		t.Fatal("the SQLite database holds the marker of a private note in the clear")
	}
	writeTeamMarker(t, srv.URL, srv.Token)
	if db := servertest.FileBytes(t, srv.Path); !bytes.Contains(db, []byte(marker)) {
		t.Fatal("a team note's marker is not found in the database: the search cannot see what it looks for")
	}
}

// TestNoPlaintextInPostgres is TestNoPlaintextInSQLite on PostgreSQL: every
// table's rows, read through SQL.
func TestNoPlaintextInPostgres(t *testing.T) {
	srv := servertest.StartPostgres(t, pgtest.Schema(t))
	syncMarked(t, srv.URL, srv.CreateToken(t, "alice"))
	if db := servertest.TableBytes(t, srv.DBURL); bytes.Contains(db, []byte(marker)) {
		t.Fatal("the PostgreSQL tables hold the marker of a private note in the clear")
	}
	writeTeamMarker(t, srv.URL, srv.Token)
	if db := servertest.TableBytes(t, srv.DBURL); !bytes.Contains(db, []byte(marker)) {
		t.Fatal("a team note's marker is not found in the tables: the search cannot see what it looks for")
	}
}

// writeTeamMarker writes the marker to a team repo in the clear.
func writeTeamMarker(t *testing.T, url, token string) {
	t.Helper()
	c, err := memsync.NewClient(url, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}))
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"entries":{"` + marker + `.md":"` + marker + `"}}`)
	if _, err := c.Put(context.Background(), "acme/app", "", body); err != nil {
		t.Fatal(err)
	}
}
