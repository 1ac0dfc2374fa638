package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// writeTeamFile writes a team file, creating its directories.
func writeTeamFile(t *testing.T, dir, key, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// serverKeys returns the live keys the test server holds for acme/app.
func serverKeys(t *testing.T, srv *servertest.Server) map[string]bool {
	t.Helper()
	snap, err := srv.Store.Snapshot(context.Background(), "acme/app", false)
	if err != nil {
		return map[string]bool{}
	}
	out := map[string]bool{}
	for k := range snap.EntryChecksums {
		out[k] = true
	}
	return out
}

// treeText returns every file name and file content under root, for a
// grep.
func treeText(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(path + "\n")
		if d.Type().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b.Write(data)
			b.WriteString("\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// syncCLI runs "teammemd sync" on dir against srv with the config text.
func syncCLI(t *testing.T, srv *servertest.Server, dir, state, config string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	t.Setenv("TEAMMEMD_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	return runCLI(t, "sync", "--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--state-dir", state, "--config", writeConfig(t, config))
}

// teammemd sync holds back a file holding a secret under every path
// gitleaks' default config allowlists, and a file whose name holds a
// secret; the rest syncs, and no output holds the secret.
func TestSyncHoldsBackSecretsUnderEveryPathAndInNames(t *testing.T) {
	srv := servertest.Start(t)
	dir, state := t.TempDir(), t.TempDir()
	aws := scantest.AWSKey()
	writeTeamFile(t, dir, "MEMORY.md", "# team\n")
	held := []string{aws + ".md", "creds/" + aws + "/prod.md"}
	for _, k := range held {
		writeTeamFile(t, dir, k, "plain notes\n")
	}
	for _, p := range scantest.DefaultAllowedPaths(t) {
		if p.SyncKey == "" || slices.Contains(held, p.SyncKey) {
			continue // two rules may allowlist one path: one file is enough
		}
		_, note := scantest.SecretFor(t, p)
		writeTeamFile(t, dir, p.SyncKey, note)
		held = append(held, p.SyncKey)
	}
	stdout, stderr, code := syncCLI(t, srv, dir, state, "")
	if code != 0 {
		t.Fatalf("sync exit %d, stderr %q, want 0", code, stderr)
	}
	if got := serverKeys(t, srv); len(got) != 1 || !got["MEMORY.md"] {
		t.Errorf("the server holds %v after sync, want MEMORY.md alone", got)
	}
	if n := strings.Count(stdout, "\nblocked "); n != len(held) {
		t.Errorf("sync printed %d blocked lines, want %d (%q):\n%s", n, len(held), held, stdout)
	}
	for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "the state directory": treeText(t, state)} {
		if leaks := scantest.Leaks(text, aws, 8); len(leaks) > 0 {
			t.Errorf("sync: %s holds the secret: %v", what, leaks)
		}
	}
}

// A key whose name holds a secret that got onto the server before, under
// rules that did not flag it, is never deleted on the server by name once
// the rules flag it: the deletion is held back and reported redacted.
func TestSyncHoldsBackDeletionOfSecretName(t *testing.T) {
	srv := servertest.Start(t)
	dir, state := t.TempDir(), t.TempDir()
	aws := scantest.AWSKey()
	key := "creds/" + aws + ".md"
	writeTeamFile(t, dir, key, "plain notes\n")
	writeTeamFile(t, dir, "MEMORY.md", "# team\n")
	own := writeConfig(t, "[[rules]]\nid = \"acme-token\"\nregex = '''acme_[a-z0-9]{16}'''\nkeywords = [\"acme_\"]\n")
	if _, stderr, code := syncCLI(t, srv, dir, state, "[scan]\ngitleaks_config = '"+own+"'\n"); code != 0 || !serverKeys(t, srv)[key] {
		t.Fatalf("first sync under rules without AWS: exit %d (%s), server %v; want the key pushed", code, stderr, serverKeys(t, srv))
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(key))); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := syncCLI(t, srv, dir, state, "")
	if code != 0 {
		t.Fatalf("sync after the deletion exit %d, stderr %q, want 0", code, stderr)
	}
	if !serverKeys(t, srv)[key] {
		t.Errorf("the server no longer holds the key: its deletion was sent by name")
	}
	if !strings.Contains(stdout, "blocked ") {
		t.Errorf("sync printed %q, want the held-back deletion reported", stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key))); err == nil {
		t.Errorf("sync wrote the server's key holding a secret back into the team directory")
	}
	for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "the state directory": treeText(t, state)} {
		if leaks := scantest.Leaks(text, aws, 8); len(leaks) > 0 {
			t.Errorf("sync: %s holds the secret: %v", what, leaks)
		}
	}
}

// A key holding a secret that a teammate's older client stored is not
// written into the team directory, and is reported redacted.
func TestSyncSkipsServerKeysHoldingSecrets(t *testing.T) {
	srv := servertest.Start(t)
	dir, state := t.TempDir(), t.TempDir()
	aws := scantest.AWSKey()
	key := "notes/" + aws + ".md"
	_, err := srv.Store.Apply(context.Background(), store.Write{
		Repo: "acme/app", Entries: map[string]string{key: "plain notes\n", "MEMORY.md": "# team\n"},
		Subject: "old-client", Time: time.Now(), MaxEntries: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := syncCLI(t, srv, dir, state, "")
	if code != 0 {
		t.Fatalf("sync exit %d, stderr %q, want 0", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "MEMORY.md")); err != nil {
		t.Errorf("MEMORY.md not pulled: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key))); err == nil {
		t.Errorf("sync wrote a key holding a secret into the team directory")
	}
	if !strings.Contains(stdout, "skipped ") {
		t.Errorf("sync printed %q, want the server's key reported as skipped", stdout)
	}
	for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "the state directory": treeText(t, state), "the team directory": treeText(t, dir)} {
		if leaks := scantest.Leaks(text, aws, 8); len(leaks) > 0 {
			t.Errorf("sync: %s holds the secret: %v", what, leaks)
		}
	}
}
