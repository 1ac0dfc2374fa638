package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// leakedSecret is what a note held by mistake.
const leakedSecret = "password = hunter2-correct-horse"

// seedLeak writes a.md three times into a new database in dir: the leak at
// version 1, the fix at 2, and b.md at 3, and returns the database path.
func seedLeak(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, sqlite.FileName)
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for i, w := range []store.Write{
		{Entries: map[string]string{"a.md": "notes\n" + leakedSecret + "\n"}},
		{Entries: map[string]string{"a.md": "notes\n"}},
		{Entries: map[string]string{"b.md": "other"}},
	} {
		w.Repo, w.Subject, w.Time = "acme/app", "ann", at.Add(time.Duration(i)*time.Second)
		if _, err := st.Apply(context.Background(), w); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// historyOf reads the revisions of key in acme/app.
func historyOf(t *testing.T, path, key string) []store.Revision {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	revs, err := store.ListHistory(context.Background(), st, store.HistoryQuery{Repo: "acme/app", Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return revs
}

// A purge whose --reason holds a secret is refused before anything is
// purged, naming the rule, never the secret: the audit log would keep it.
func TestAdminPurgeReasonWithSecret(t *testing.T) {
	dir := t.TempDir()
	path := seedLeak(t, dir)
	key := scantest.AWSKey()
	_, stderr, code := runCLI(t, "admin", "purge", "--data", dir, "--repo", "acme/app", "--key", "a.md",
		"--version", "1", "--actor", "alice", "--reason", "leaked "+key+", rotated")
	if code != exitUsage || !strings.Contains(stderr, "--reason looks like it holds a secret") || strings.Contains(stderr, key) {
		t.Errorf("admin purge with a secret in --reason: exit %d, stderr %q; want %d, the refusal, no secret", code, stderr, exitUsage)
	}
	for _, r := range historyOf(t, path, "a.md") {
		if r.Content == nil && !r.Deleted {
			t.Errorf("revision %d lost its content to the refused purge", r.Version)
		}
	}
}

// TestAdminPurgeRevision purges the leaked revision of a key: its content
// is gone from history, the live entry is untouched, and the purge is in
// the audit log with who, what, when and why, never the content.
func TestAdminPurgeRevision(t *testing.T) {
	dir := t.TempDir()
	path := seedLeak(t, dir)
	stdout, stderr, code := runCLI(t, "admin", "purge", "--data", dir, "--repo", "acme/app", "--key", "a.md",
		"--version", "1", "--actor", "alice", "--reason", "leaked password")
	if code != 0 {
		t.Fatalf("admin purge exit = %d, stderr %q, want 0", code, stderr)
	}
	if want := "purged the content of revision 1 of a.md in acme/app"; !strings.Contains(stdout, want) {
		t.Errorf("admin purge stdout = %q, want it to contain %q", stdout, want)
	}
	revs := historyOf(t, path, "a.md")
	if len(revs) != 2 || revs[1].Version != 1 || revs[1].Content != nil || revs[0].Content == nil || *revs[0].Content != "notes\n" {
		t.Fatalf("History(a.md) after purge = %+v, want version 2 with its content and version 1 without", revs)
	}

	list, stderr, code := runCLI(t, "admin", "purges", "--data", dir)
	if code != 0 {
		t.Fatalf("admin purges exit = %d, stderr %q, want 0", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "TIME") {
		t.Fatalf("admin purges = %q, want a header and one record", list)
	}
	for _, want := range []string{"alice", "acme/app", "a.md", "1", "leaked password"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("admin purges record = %q, want it to contain %q", lines[1], want)
		}
	}
	if strings.Contains(stdout+list, "hunter2") {
		t.Errorf("admin output holds the purged content: %q %q", stdout, list)
	}
}

// TestAdminPurgeLiveWhileServing purges the live revision of an entry in the
// database of a running server: the server then serves the entry deleted,
// at a new version, and its history route shows the revision without its
// content, with its checksum and the deletion recorded by the purge.
func TestAdminPurgeLiveWhileServing(t *testing.T) {
	s := servertest.Start(t)
	dir := filepath.Dir(s.Path)
	c := &http.Client{Timeout: 10 * time.Second}
	send := func(method, path, body string) (int, []byte) {
		t.Helper()
		r, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer "+s.Token)
		resp, err := c.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}
	if code, out := send(http.MethodPut, api.Path+"?repo=acme%2Fapp", `{"entries":{"a.md":"`+leakedSecret+`","b.md":"b"}}`); code != http.StatusOK {
		t.Fatalf("PUT = %d %s", code, out)
	}
	stdout, stderr, code := runCLI(t, "admin", "purge", "--data", dir, "--repo", "acme/app", "--key", "a.md", "--all", "--include-live", "--actor", "alice")
	if code != 0 || !strings.Contains(stdout, "deleted the live entry: acme/app is now at version 2") {
		t.Fatalf("admin purge --include-live = exit %d, stdout %q, stderr %q, want 0 and the deletion", code, stdout, stderr)
	}
	status, body := send(http.MethodGet, api.Path+"?repo=acme%2Fapp", "")
	var full api.FullResponse
	if err := json.Unmarshal(body, &full); err != nil || status != http.StatusOK {
		t.Fatalf("GET = %d %s", status, body)
	}
	if _, live := full.Content.Entries["a.md"]; live || full.Content.DeletedEntries["a.md"] == 0 || full.Version != 2 {
		t.Errorf("GET after purge = version %d, entries %v, deleted %v, want version 2 with a.md deleted", full.Version, full.Content.Entries, full.Content.DeletedEntries)
	}
	status, body = send(http.MethodGet, api.HistoryPath+"?repo=acme%2Fapp&key=a.md", "")
	var h api.HistoryResponse
	if err := json.Unmarshal(body, &h); err != nil || status != http.StatusOK {
		t.Fatalf("GET history = %d %s", status, body)
	}
	if len(h.Revisions) != 2 || !h.Revisions[0].Deleted || h.Revisions[0].Subject != store.PurgeSubjectPrefix+"alice" ||
		h.Revisions[1].Content != nil || h.Revisions[1].Checksum != api.EntryChecksum(leakedSecret) {
		t.Errorf("history after purge = %s, want the deletion by %salice, then version 1 with its checksum and no content", body, store.PurgeSubjectPrefix)
	}
	if strings.Contains(string(body), "hunter2") {
		t.Errorf("history after purge holds the purged content: %s", body)
	}
}

func TestAdminHistory(t *testing.T) {
	dir := t.TempDir()
	seedLeak(t, dir)
	runCLI(t, "admin", "purge", "--data", dir, "--repo", "acme/app", "--key", "a.md", "--version", "1", "--actor", "alice")
	stdout, stderr, code := runCLI(t, "admin", "history", "--data", dir, "--repo", "acme/app", "--key", "a.md")
	if code != 0 {
		t.Fatalf("admin history exit = %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "VERSION") || !strings.HasPrefix(lines[1], "2 ") ||
		!strings.Contains(lines[1], "6 bytes") || !strings.HasPrefix(lines[2], "1 ") || !strings.Contains(lines[2], "purged") {
		t.Errorf("admin history = %q, want version 2 with 6 bytes, then version 1 purged", stdout)
	}
}

func TestAdminPurgeErrors(t *testing.T) {
	dir := t.TempDir()
	seedLeak(t, dir)
	base := []string{"admin", "purge", "--data", dir, "--actor", "root"}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no subcommand", []string{"admin"}, 2, "subcommand"},
		{"unknown subcommand", []string{"admin", "erase"}, 2, "erase"},
		{"no repo", append(base, "--key", "a.md", "--all"), 2, "--repo"},
		{"bad repo", append(base, "--repo", "acme", "--key", "a.md", "--all"), 2, "--repo"},
		{"no key", append(base, "--repo", "acme/app", "--all"), 2, "--key is required"},
		{"neither version nor all", append(base, "--repo", "acme/app", "--key", "a.md"), 2, "either --version"},
		{"both version and all", append(base, "--repo", "acme/app", "--key", "a.md", "--version", "1", "--all"), 2, "either --version"},
		{"bad version", append(base, "--repo", "acme/app", "--key", "a.md", "--version", "1,x"), 2, "whole numbers"},
		{"control in reason", append(base, "--repo", "acme/app", "--key", "a.md", "--all", "--reason", "a\x1bb"), 2, "--reason"},
		{"repo never written", append(base, "--repo", "acme/none", "--key", "a.md", "--all"), 1, "never been written"},
		{"key never written", append(base, "--repo", "acme/app", "--key", "none.md", "--all"), 1, "no revisions"},
		{"key no note can have", append(base, "--repo", "acme/app", "--key", "../x", "--all"), 1, "; ../x is not a key a note can have: "},
		{"history of a key no note can have", []string{"admin", "history", "--data", dir, "--repo", "acme/app", "--key", "a/../x.md"}, 1,
			"a/../x.md in acme/app has no revisions; a/../x.md is not a key a note can have: "},
		{"purges of a bad repo", []string{"admin", "purges", "--data", dir, "--repo", "acme"}, 2, "--repo: "},
		{"version of another key", append(base, "--repo", "acme/app", "--key", "a.md", "--version", "3"), 1, "not a revision"},
		{"live revision", append(base, "--repo", "acme/app", "--key", "a.md", "--version", "1,2"), 1, "--include-live"},
		{"no database", []string{"admin", "purges", "--data", filepath.Join(dir, "none")}, 1, "no server database"},
	}
	for _, tt := range tests {
		_, stderr, code := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q, want exit %d and %q", tt.name, code, stderr, tt.code, tt.want)
		}
	}
	revs := historyOf(t, filepath.Join(dir, sqlite.FileName), "a.md")
	if len(revs) != 2 || revs[0].Content == nil || revs[1].Content == nil {
		t.Errorf("History(a.md) after refused purges = %+v, want both revisions with content", revs)
	}
	if out, _, _ := runCLI(t, "admin", "purges", "--data", dir); strings.Count(out, "\n") != 1 {
		t.Errorf("admin purges after refused purges = %q, want the header alone", out)
	}
}

// TestAdminListingsEscapeNames: the subjects, actors and reasons the admin
// listings print come from an identity provider's claims or from the
// database, and reach the operator's terminal escaped, as the audit log's
// do.
func TestAdminListingsEscapeNames(t *testing.T) {
	dir := t.TempDir()
	path := seedLeak(t, dir)
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := store.Write{Repo: "acme/app", Subject: "eve\x1b[2J\tx", Time: time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC),
		Entries: map[string]string{"a.md": "notes, again\n"}}
	if _, err := st.Apply(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	// The command refuses such an actor and reason; a record another
	// tool wrote is listed all the same.
	if _, err := st.Purge(context.Background(), store.Purge{Repo: "acme/app", Key: "a.md", Versions: []int64{1},
		Actor: "al\x1b]0;x\x07ice", Reason: "leak\x1b[31m", Time: w.Time}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"admin", "history", "--data", dir, "--repo", "acme/app", "--key", "a.md"},
		{"admin", "purges", "--data", dir},
	} {
		stdout, stderr, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v exit = %d, stderr %q", args, code, stderr)
		}
		if strings.ContainsAny(stdout, "\x1b\x07") {
			t.Errorf("%v printed a control character:\n%q", args, stdout)
		}
	}
	stdout, _, _ := runCLI(t, "admin", "history", "--data", dir, "--repo", "acme/app", "--key", "a.md")
	if !strings.Contains(stdout, `eve\x1b[2J\tx`) {
		t.Errorf("admin history lacks the escaped subject:\n%s", stdout)
	}
	stdout, _, _ = runCLI(t, "admin", "purges", "--data", dir)
	if !strings.Contains(stdout, `al\x1b]0;x\aice`) || !strings.Contains(stdout, `leak\x1b[31m`) {
		t.Errorf("admin purges lacks the escaped actor and reason:\n%s", stdout)
	}
}
