package memsync

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/api"
)

// hostileServer replays a crafted full pull that the real server would
// never send.
func hostileServer(t *testing.T, entries map[string]string) *httptest.Server {
	sums := map[string]string{}
	for k, v := range entries {
		sums[k] = api.EntryChecksum(v)
	}
	body, err := json.Marshal(api.FullResponse{
		OrganizationID: "evil", Repo: testRepo, Version: 1, Checksum: api.RepoChecksum(sums, nil),
		Content: api.Content{Entries: entries, EntryChecksums: sums},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, `{"type":"error","error":{"type":"api_error","message":"read only","details":{"error_code":"invalid_request"}}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestHostileKeysWriteNothingOutside(t *testing.T) {
	hostile := map[string]string{
		"../escape.md":                   "x",
		"/etc/passwd.md":                 "x",
		"C:/win.md":                      "x",
		"a/../../escape2.md":             "x",
		"%2e%2e/escape3.md":              "x",
		"a\\..\\escape4.md":              "x",
		"\u2025/escape5.md":              "x",
		"nul\x00.md":                     "x",
		"trailing.md ":                   "x",
		"link/inside.md":                 "through a symlink",
		"dangling.md":                    "into a dangling symlink",
		"linkfile.md":                    "over a symlink to a file outside",
		".git/config.md":                 "hidden",
		"script.sh":                      "not md",
		strings.Repeat("l", 300) + ".md": "too long a name",
		"ok/good.md":                     "fine",
	}
	srv := hostileServer(t, hostile)
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	dir := filepath.Join(base, "team")
	for _, d := range []string{outside, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	victim := filepath.Join(outside, "victim.md")
	os.WriteFile(victim, []byte("victim"), 0o644)
	must(t, os.Symlink(outside, filepath.Join(dir, "link")))
	must(t, os.Symlink(filepath.Join(outside, "nowhere.md"), filepath.Join(dir, "dangling.md")))
	must(t, os.Symlink(victim, filepath.Join(dir, "linkfile.md")))

	eng := newTestEngine(t, srv.URL, "token", dir, t.TempDir(), nil)
	rep, err := eng.Pull(context.Background())
	if err != nil {
		t.Fatalf("Pull: %v", err)
	}
	if len(rep.Pulled) != 1 || rep.Pulled[0] != "ok/good.md" {
		t.Errorf("Pulled = %v, want only ok/good.md", rep.Pulled)
	}
	if want := len(hostile) - 1; len(rep.Skipped) != want {
		t.Errorf("Skipped %d keys, want %d: %+v", len(rep.Skipped), want, rep.Skipped)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside directory holds %d files, want only victim.md", len(entries))
	}
	if data, _ := os.ReadFile(victim); string(data) != "victim" {
		t.Errorf("victim.md = %q, changed through a symlink", data)
	}
	if _, err := os.Lstat(filepath.Join(outside, "nowhere.md")); err == nil {
		t.Error("a write followed the dangling symlink")
	}
	for _, p := range []string{filepath.Join(base, "escape.md"), "/etc/passwd.md"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

func TestFileNameProblem(t *testing.T) {
	tests := []struct {
		key, goos string
		bad       bool
	}{
		{"a.md", "linux", false},
		{"a:b.md", "linux", false},
		{"a:b.md", "windows", true},
		{"con.md", "windows", true},
		{"dir/COM1.txt", "windows", true},
		{"console.md", "windows", false},
		{strings.Repeat("x", 256) + ".md", "linux", true},
		{strings.Repeat("x", 250) + ".md", "darwin", false},
	}
	for _, tc := range tests {
		if got := fileNameProblem(tc.key, tc.goos) != ""; got != tc.bad {
			t.Errorf("fileNameProblem(%.20q, %s) bad = %v, want %v", tc.key, tc.goos, got, tc.bad)
		}
	}
}

func TestCaseTwinsOnCaseInsensitiveFS(t *testing.T) {
	claimed := map[string]string{"notes.md": "Notes.md"}
	if got, passing := writeProblem("notes.md", claimed, true); got == "" || !passing {
		t.Errorf("writeProblem(notes.md) with Notes.md local = %q, %v; want a case-twin refusal that may pass", got, passing)
	}
	if got, _ := writeProblem("Notes.md", claimed, true); got != "" {
		t.Errorf("writeProblem(Notes.md) = %q, want ok", got)
	}
	if got, _ := writeProblem("notes.md", map[string]string{}, false); got != "" {
		t.Errorf("writeProblem on a case-sensitive FS = %q, want ok", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestPullWritesOneOfCaseTwins(t *testing.T) {
	srv := hostileServer(t, map[string]string{"Notes.md": "upper", "notes.md": "lower", "other.md": "server", "sub/a.md": "a"})
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "Other.md"), []byte("local"), 0o644))
	eng := newTestEngine(t, srv.URL, "token", dir, t.TempDir(), nil)
	td, err := openTeamDir(dir)
	must(t, err)
	defer td.close()
	td.caseInsensitive = true // as on macOS and Windows
	rep := &Report{}
	s := &session{Engine: eng, st: newState(testRepo, srv.URL), td: td, rep: rep}
	must(t, s.pull(context.Background()))
	if got := strings.Join(rep.Pulled, ","); got != "Notes.md,sub/a.md" {
		t.Errorf("Pulled = %s, want Notes.md,sub/a.md", got)
	}
	for _, k := range []string{"notes.md", "other.md"} {
		if !skippedFor(*rep, k, "differs only in case") {
			t.Errorf("Skipped = %+v, want %s reported as a case twin", rep.Skipped, k)
		}
		if _, err := os.Lstat(filepath.Join(dir, k)); err == nil {
			t.Errorf("%s was written beside its case twin", k)
		}
	}
}
