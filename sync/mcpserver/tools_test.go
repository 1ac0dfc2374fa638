package mcpserver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
	memsync "github.com/teammemd/teammemd/sync"

	"github.com/teammemd/teammemd/sync/claude/claudetest"
)

var notes = map[string]string{
	"MEMORY.md":      "# Team memory\n- [Deploys](deploy.md)\n",
	"deploy.md":      "---\nname: Deploys\ndescription: how we ship\ntype: project\n---\nRun make deploy.\nStaging needs the VPN.\n",
	"db/postgres.md": "---\nname: Database\ndescription: the PostgreSQL setup\ntype: reference\n---\nWe run PostgreSQL 16.\n",
	"db/old/v1.md":   "the first schema\n",
	"skip.json":      "{}\n",
}

func defaultOpts(dir string) Options {
	return Options{Default: &Target{Repo: testRepo, Dir: dir}}
}

func TestList(t *testing.T) {
	c := startServer(t, defaultOpts(teamDir(t, notes)))
	tests := []struct {
		prefix string
		depth  int
		keys   []string
		dirs   []string
	}{
		{"", 0, []string{"MEMORY.md", "db/old/v1.md", "db/postgres.md", "deploy.md"}, nil},
		{"", 1, []string{"MEMORY.md", "deploy.md"}, []string{"db/"}},
		{"db/", 1, []string{"db/postgres.md"}, []string{"db/old/"}},
		{"db", 1, []string{"db/postgres.md"}, []string{"db/old/"}},
		{"db", 2, []string{"db/old/v1.md", "db/postgres.md"}, nil},
		{"de", 1, []string{"deploy.md"}, nil},
		{"nothing/", 0, nil, nil},
	}
	for _, tt := range tests {
		var out listOut
		c.call(t, "memory_list", map[string]any{"prefix": tt.prefix, "depth": tt.depth}, &out)
		var keys, dirs []string
		for _, n := range out.Notes {
			keys = append(keys, n.Key)
		}
		for _, d := range out.Dirs {
			dirs = append(dirs, d.Path)
		}
		if !slices.Equal(keys, tt.keys) || !slices.Equal(dirs, tt.dirs) {
			t.Errorf("memory_list(%q, %d) = %v %v, want %v %v", tt.prefix, tt.depth, keys, dirs, tt.keys, tt.dirs)
		}
	}
	var out listOut
	c.call(t, "memory_list", map[string]any{"prefix": "deploy"}, &out)
	want := noteInfo{Key: "deploy.md", Name: "Deploys", Description: "how we ship", Size: int64(len(notes["deploy.md"])),
		SHA256: api.EntryChecksum(notes["deploy.md"]), URI: "teammemd://acme/app/~/deploy.md"}
	if got := out.Notes[0]; got.Key != want.Key || got.Name != want.Name || got.Description != want.Description ||
		got.Size != want.Size || got.SHA256 != want.SHA256 || got.URI != want.URI || got.Age == "" {
		t.Errorf("memory_list(deploy) = %+v, want %+v", got, want)
	}
}

func TestRead(t *testing.T) {
	c := startServer(t, defaultOpts(teamDir(t, notes)))
	tests := []struct {
		start, end       int
		content          string
		first, last, tot int
	}{
		{0, 0, notes["deploy.md"], 1, 7, 7},
		{6, 0, "Run make deploy.\nStaging needs the VPN.\n", 6, 7, 7},
		{2, 3, "name: Deploys\ndescription: how we ship\n", 2, 3, 7},
		{7, 99, "Staging needs the VPN.\n", 7, 7, 7},
	}
	for _, tt := range tests {
		var out readOut
		c.call(t, "memory_read", map[string]any{"key": "deploy.md", "start_line": tt.start, "end_line": tt.end}, &out)
		if out.Content != tt.content || out.StartLine != tt.first || out.EndLine != tt.last || out.TotalLines != tt.tot {
			t.Errorf("memory_read(deploy.md, %d, %d) = %q %d-%d of %d, want %q %d-%d of %d", tt.start, tt.end,
				out.Content, out.StartLine, out.EndLine, out.TotalLines, tt.content, tt.first, tt.last, tt.tot)
		}
		if out.SHA256 != api.EntryChecksum(notes["deploy.md"]) {
			t.Errorf("memory_read(deploy.md).sha256 = %s, want the whole note's", out.SHA256)
		}
	}
	for _, args := range []map[string]any{
		{"key": "gone.md"},
		{"key": "../etc/passwd.md"},
		{"key": "skip.json"},
		{"key": "deploy.md", "start_line": 8},
	} {
		c.callErr(t, "memory_read", args)
	}
}

func TestSearch(t *testing.T) {
	c := startServer(t, defaultOpts(teamDir(t, notes)))
	var out searchOut
	c.call(t, "memory_search", map[string]any{"query": "postgres"}, &out)
	if len(out.Hits) != 1 || out.Hits[0].Key != "db/postgres.md" || out.Hits[0].Snippet == "" {
		t.Fatalf("memory_search(postgres) = %+v, want db/postgres.md with a snippet", out.Hits)
	}
	c.call(t, "memory_search", map[string]any{"query": "kubernetes"}, &out)
	if len(out.Hits) != 0 {
		t.Errorf("memory_search(kubernetes) = %+v, want none", out.Hits)
	}
	c.callErr(t, "memory_search", map[string]any{"query": "x", "limit": 51})
}

func TestWriteAndDelete(t *testing.T) {
	dir := teamDir(t, notes)
	c := startServer(t, defaultOpts(dir))
	var w writeOut
	c.call(t, "memory_write", map[string]any{"key": "new/idea.md", "content": "first\n"}, &w)
	if !w.Created || w.SHA256 != api.EntryChecksum("first\n") || claudetest.ReadNote(t, dir, "new/idea.md") != "first\n" {
		t.Fatalf("memory_write(new) = %+v, disk %q", w, claudetest.ReadNote(t, dir, "new/idea.md"))
	}
	msg := c.callErr(t, "memory_write", map[string]any{"key": "new/idea.md", "content": "again\n"})
	if !strings.Contains(msg, api.EntryChecksum("first\n")) {
		t.Errorf("memory_write over an existing note = %q, want the current sha256", msg)
	}
	msg = c.callErr(t, "memory_write", map[string]any{"key": "new/idea.md", "content": "stale\n", "sha256": api.EntryChecksum("other\n")})
	if !strings.Contains(msg, "current sha256 "+api.EntryChecksum("first\n")) || claudetest.ReadNote(t, dir, "new/idea.md") != "first\n" {
		t.Errorf("memory_write(stale sha256) = %q, disk %q; want refused with the current sha256", msg, claudetest.ReadNote(t, dir, "new/idea.md"))
	}
	c.call(t, "memory_write", map[string]any{"key": "new/idea.md", "content": "second\n", "sha256": w.SHA256}, &w)
	if w.Created || claudetest.ReadNote(t, dir, "new/idea.md") != "second\n" {
		t.Errorf("memory_write(sha256 read) = %+v, disk %q", w, claudetest.ReadNote(t, dir, "new/idea.md"))
	}
	var s searchOut
	c.call(t, "memory_search", map[string]any{"query": "second"}, &s)
	if len(s.Hits) != 1 || s.Hits[0].Key != "new/idea.md" {
		t.Errorf("memory_search right after a write = %+v, want the note written", s.Hits)
	}
	c.callErr(t, "memory_delete", map[string]any{"key": "new/idea.md", "sha256": api.EntryChecksum("first\n")})
	if claudetest.ReadNote(t, dir, "new/idea.md") != "second\n" {
		t.Error("memory_delete with a stale sha256 deleted the note")
	}
	var d deleteOut
	c.call(t, "memory_delete", map[string]any{"key": "new/idea.md", "sha256": w.SHA256}, &d)
	if claudetest.ReadNote(t, dir, "new/idea.md") != "<missing>" {
		t.Error("memory_delete left the note on disk")
	}
}

func TestWriteRefused(t *testing.T) {
	dir := teamDir(t, notes)
	c := startServer(t, defaultOpts(dir))
	aws := scantest.AWSKey()
	tests := []struct {
		key, content, want string
	}{
		{"deploy-keys.md", scantest.AWSNote(aws), scantest.AWSRule},
		{"creds/" + aws + ".md", "plain\n", scantest.AWSRule},
		{"../outside.md", "x\n", "not a valid key: dot path segment"},
		{"notes.json", "{}\n", "does not sync"},
		{".hidden.md", "x\n", "does not sync"},
	}
	for _, tt := range tests {
		msg := c.callErr(t, "memory_write", map[string]any{"key": tt.key, "content": tt.content})
		if !strings.Contains(msg, tt.want) || strings.Contains(msg, aws) || strings.Contains(msg, api.CodeInvalidKey) {
			t.Errorf("memory_write(%q) = %q, want it refused naming %q, never the secret", api.RedactKey(tt.key), msg, tt.want)
		}
		if got := claudetest.ReadNote(t, dir, tt.key); got != "<missing>" {
			t.Errorf("memory_write(%q) refused, but the disk holds it", api.RedactKey(tt.key))
		}
	}
}

// A note of type user written to the team directory is told the daemon
// holds it back, in teammemd lint's words; with [client] share_user_notes
// set the daemon pushes it, and it is told nothing of the kind.
func TestWriteWarnsPersonal(t *testing.T) {
	for _, share := range []bool{false, true} {
		opts := defaultOpts(teamDir(t, nil))
		opts.ShareUserNotes = share
		c := startServer(t, opts)
		var w writeOut
		c.call(t, "memory_write", map[string]any{"key": "me.md", "content": "---\nname: Me\ndescription: about me\ntype: user\n---\nI like tabs.\n"}, &w)
		held := slices.Contains(w.Warnings, memsync.HeldPersonal)
		personal := slices.ContainsFunc(w.Warnings, func(s string) bool { return strings.Contains(s, "personal") })
		if held != !share || personal != !share {
			t.Errorf("memory_write(a type: user note) with share_user_notes %v: warnings = %q, want the held-back warning %v", share, w.Warnings, !share)
		}
	}
}

// linkedTeamDir returns a team directory holding notes, ldir, a symbolic
// link out of it, to a directory holding outside.md; inlink, one to its
// own db; link.md, one to its own deploy.md; and dir.md, a directory.
func linkedTeamDir(t *testing.T) (dir, outside string) {
	t.Helper()
	dir = teamDir(t, notes)
	outside = t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "outside.md"), []byte("not the team's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"ldir": outside, "inlink": filepath.Join(dir, "db"), "link.md": filepath.Join(dir, "deploy.md")} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	return dir, outside
}

// linkRefusals are the keys of linkedTeamDir that are refused and why,
// in the words every tool uses after "is not readable: " and the like.
var linkRefusals = []struct{ key, why string }{
	{"ldir/outside.md", "its path goes through ldir, a symbolic link, which teammemd never follows"},
	{"inlink/postgres.md", "its path goes through inlink, a symbolic link, which teammemd never follows"},
	{"link.md", "it is a symbolic link, which teammemd never follows"},
	{"dir.md", "it is a directory, not a regular file"},
}

// A note whose path goes through a symbolic link, out of the team
// directory or within it, or that is not a regular file, is not read,
// and the refusal says why in plain words.
func TestReadRefusesLinks(t *testing.T) {
	dir, _ := linkedTeamDir(t)
	c := startServer(t, defaultOpts(dir))
	for _, tt := range linkRefusals {
		want := tt.key + " is not readable: " + tt.why
		if got := c.callErr(t, "memory_read", map[string]any{"key": tt.key}); got != want {
			t.Errorf("memory_read(%s) = %q, want %q", tt.key, got, want)
		}
	}
}

// A write whose path goes through a symbolic link, or over a note that
// is one or is not a regular file, is refused as a read is, in the same
// words, whether it creates the note or replaces it; nothing changes on
// either side of the link.
func TestWriteRefusesLinks(t *testing.T) {
	dir, outside := linkedTeamDir(t)
	c := startServer(t, defaultOpts(dir))
	keys := slices.Concat(linkRefusals, []struct{ key, why string }{{"ldir/new.md", "its path goes through ldir, a symbolic link, which teammemd never follows"}})
	for _, tt := range keys {
		want := tt.key + " is not writable: " + tt.why
		for _, sum := range []string{"", api.EntryChecksumBytes([]byte(notes["deploy.md"]))} {
			args := map[string]any{"key": tt.key, "content": "changed\n"}
			if sum != "" {
				args["sha256"] = sum
			}
			if got := c.callErr(t, "memory_write", args); got != want {
				t.Errorf("memory_write(%s, sha256 %q) = %q, want %q", tt.key, sum, got, want)
			}
		}
	}
	assertLinksUntouched(t, dir, outside)
}

// A deletion whose path goes through a symbolic link, or of a note that
// is one or is not a regular file, is refused as a read is, in the same
// words; nothing changes on either side of the link.
func TestDeleteRefusesLinks(t *testing.T) {
	dir, outside := linkedTeamDir(t)
	c := startServer(t, defaultOpts(dir))
	sums := map[string]string{"ldir/outside.md": "not the team's\n", "inlink/postgres.md": notes["db/postgres.md"], "link.md": notes["deploy.md"], "dir.md": ""}
	for _, tt := range linkRefusals {
		want := tt.key + " is not deletable: " + tt.why
		sum := api.EntryChecksumBytes([]byte(sums[tt.key]))
		if got := c.callErr(t, "memory_delete", map[string]any{"key": tt.key, "sha256": sum}); got != want {
			t.Errorf("memory_delete(%s) = %q, want %q", tt.key, got, want)
		}
	}
	assertLinksUntouched(t, dir, outside)
}

// assertLinksUntouched checks that linkedTeamDir's links, their targets
// and the directory are as made.
func assertLinksUntouched(t *testing.T, dir, outside string) {
	t.Helper()
	for _, link := range []string{"ldir", "inlink", "link.md"} {
		if fi, err := os.Lstat(filepath.Join(dir, link)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s after the refusals: %v, %v; want the symbolic link", link, fi, err)
		}
	}
	entries, err := os.ReadDir(outside)
	if err != nil || len(entries) != 1 || claudetest.ReadNote(t, outside, "outside.md") != "not the team's\n" {
		t.Errorf("the directory outside after the refusals = %v, %v; want outside.md alone, unchanged", entries, err)
	}
	for _, key := range []string{"deploy.md", "db/postgres.md"} {
		if got := claudetest.ReadNote(t, dir, key); got != notes[key] {
			t.Errorf("%s after the refusals = %q, want it unchanged", key, got)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "dir.md")); err != nil || !fi.IsDir() {
		t.Errorf("dir.md after the refusals: %v, %v; want the directory", fi, err)
	}
}
