package teamindex

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	memsync "github.com/teammemd/teammemd/sync"
)

// testScanner is loaded once: building the gitleaks ruleset is slow.
var testScanner = sync.OnceValues(func() (*scan.Scanner, error) { return scan.New(scan.Config{}) })

// TestBuildListsOnlySharedNotes: the index lists the notes the server
// holds as they are on disk, with the name and description of either
// frontmatter shape and who wrote them, and never a note held back for a
// secret, a personal note, one the server refused or one not pushed yet:
// those are only counted. No body, no hidden file is shown.
func TestBuildListsOnlySharedNotes(t *testing.T) {
	sc, err := testScanner()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, sc, servertest.WithScanner(servertest.MarkerScanner("SERVER-REFUSES")))
	old := time.Now().Add(-3 * time.Hour)
	f.write(t, "deploy.md", note("Deploy", "how we ship to production", "BODY make ship\n"), old)
	f.write(t, "db/migrations.md", "---\nname: Migrations\ndescription: never edit an applied migration\nmetadata:\n  type: project\n---\nBODY\n", old)
	f.write(t, "MEMORY.md", "# Team memory\n- [Deploy](deploy.md) BODY\n", old)
	key := scantest.AWSKey()
	f.write(t, "creds.md", note("Creds", "the deploy key", scantest.AWSNote(key)), old)
	f.write(t, "personal.md", "---\nname: Me\ndescription: my own habits\ntype: user\n---\nBODY\n", old)
	f.write(t, "refused.md", note("Refused", "the server refuses it", "SERVER-REFUSES\n"), old)
	f.write(t, ".hidden.md", note("Hidden", "a dot-file", "BODY\n"), old)
	rep := f.sync(t)
	if len(rep.Blocked) != 1 || rep.Blocked[0].Key != "creds.md" {
		t.Fatalf("Sync() blocked %+v, want creds.md held back for its secret", rep.Blocked)
	}
	f.write(t, "later.md", note("Later", "written after the sync", "BODY\n"), time.Time{})

	out := f.render(t, time.Now())
	for _, want := range []string{
		"Team memory of acme/app: notes shared with every teammate by teammemd, kept in " + f.src.Dir + "\n",
		"\nMEMORY.md in that directory is the team's own index note.\n",
		"\n2 notes, newest change first; read a note's file when it bears on the task:\n",
		"\n- db/migrations.md: Migrations - never edit an applied migration (changed by servertest just now)\n",
		"\n- deploy.md: Deploy - how we ship to production (changed by servertest just now)\n",
		"\n4 local notes are not listed: the team does not have them as they are here",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("index lacks %q; index:\n%s", want, out)
		}
	}
	for _, never := range []string{"creds", key, "personal", "Me -", "refused", "Refused", "later", "hidden", "BODY"} {
		if strings.Contains(out, never) {
			t.Errorf("index holds %q, want it left out; index:\n%s", never, out)
		}
	}
}

// TestProvenanceShownOnlyWhenItMatches: who changed a note is shown when
// the provenance record holds the checksum of the note as it is on disk;
// otherwise, with no record or a corrupt one, the note shows as a local
// change as old as its file.
func TestProvenanceShownOnlyWhenItMatches(t *testing.T) {
	f := newFixture(t, nil)
	now := time.Now()
	f.write(t, "a.md", note("A", "the note", "body\n"), now.Add(-50*time.Hour))
	f.sync(t)
	path, err := memsync.ProvenancePath(f.src.StateDir, f.src.Repo, f.src.Server, f.src.Dir)
	if err != nil {
		t.Fatal(err)
	}
	made, err := memsync.LoadProvenance(path)
	if err != nil {
		t.Fatal(err)
	}
	record := func(c memsync.Change) []byte {
		p := *made
		p.Keys = map[string]memsync.Change{"a.md": c}
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	written := made.Keys["a.md"]
	tests := []struct {
		name   string
		record []byte // nil: no record
		want   string
	}{
		{"the record of this content", record(memsync.Change{Version: written.Version, Subject: "ann", Time: now.Add(-5 * time.Hour), Checksum: written.Checksum}),
			"- a.md: A - the note (changed by ann 5 hours ago)"},
		{"the record of other content", record(memsync.Change{Version: written.Version, Subject: "ann", Time: now, Checksum: api.EntryChecksum("other")}),
			"- a.md: A - the note (local change 2 days ago)"},
		{"the record of a deletion", record(memsync.Change{Version: written.Version, Subject: "ann", Time: now, Deleted: true}),
			"- a.md: A - the note (local change 2 days ago)"},
		{"no record", nil, "- a.md: A - the note (local change 2 days ago)"},
		{"a corrupt record", []byte(`{"format":1,`), "- a.md: A - the note (local change 2 days ago)"},
	}
	for _, tt := range tests {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if tt.record != nil {
			if err := os.WriteFile(path, tt.record, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if out := f.render(t, now); !strings.Contains(out, "\n"+tt.want+"\n") {
			t.Errorf("%s: index lacks %q; index:\n%s", tt.name, tt.want, out)
		}
	}
}

// TestBuildOrder: notes are listed newest change first, by key on a tie.
func TestBuildOrder(t *testing.T) {
	f := newFixture(t, nil)
	now := time.Now()
	for _, k := range []string{"b.md", "a.md", "c.md"} {
		f.write(t, k, note(k, "d", ""), now.Add(-time.Hour))
	}
	f.sync(t)
	if err := os.Remove(mustProvenancePath(t, f.src)); err != nil {
		t.Fatal(err)
	}
	f.write(t, "c.md", note("c.md", "d", ""), now.Add(-2*time.Hour))
	idx, err := Build(f.src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range idx.Notes {
		got = append(got, n.Key)
	}
	if want := "a.md b.md c.md"; strings.Join(got, " ") != want {
		t.Errorf("Build() order = %q, want %q", got, want)
	}
}

func mustProvenancePath(t *testing.T, src Source) string {
	t.Helper()
	path, err := memsync.ProvenancePath(src.StateDir, src.Repo, src.Server, src.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return path
}
