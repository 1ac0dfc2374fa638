package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/service"
	"github.com/teammemd/teammemd/sync/daemon"
)

// decodeJSON runs teammemd args, wants exit status code, and decodes its
// stdout into v, strictly: a field the schema lacks is an error.
func decodeJSON(t *testing.T, v any, code int, args ...string) {
	t.Helper()
	stdout, stderr, got := runCLI(t, args...)
	if got != code {
		t.Fatalf("teammemd %s: exit %d, want %d\n%s%s", strings.Join(args, " "), got, code, stdout, stderr)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("teammemd %s: decode %T: %v\n%s", strings.Join(args, " "), v, err, stdout)
	}
}

// Each command's --json output decodes into its schema, from a real server
// and real files.
func TestJSONOutputs(t *testing.T) {
	srv := servertest.Start(t)
	dir := t.TempDir()
	cfg := writeConfig(t, "")
	if err := os.WriteFile(filepath.Join(dir, "MEMORY.md"), []byte("# team\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	repo := []string{"--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--config", cfg}

	var synced syncJSON
	decodeJSON(t, &synced, 0, append([]string{"sync", "--json"}, repo...)...)
	if synced.Repo != "acme/app" || !slices.Equal(synced.Pushed, []string{"MEMORY.md"}) || synced.Error != "" {
		t.Errorf("sync --json = %+v, want MEMORY.md pushed to acme/app", synced)
	}

	var hist historyJSON
	decodeJSON(t, &hist, 0, append([]string{"history", "--json"}, repo...)...)
	if len(hist.Revisions) != 1 || hist.Revisions[0].Key != "MEMORY.md" || hist.Revisions[0].Version < 1 {
		t.Errorf("history --json = %+v, want one revision of MEMORY.md", hist)
	}

	var rev api.Revision
	decodeJSON(t, &rev, 0, append([]string{"show", "MEMORY.md", "--json"}, repo...)...)
	if rev.Key != "MEMORY.md" || rev.Content == nil || *rev.Content != "# team\n" {
		t.Errorf("show --json = %+v, want MEMORY.md with its content", rev)
	}

	var conflicts conflictsJSON
	decodeJSON(t, &conflicts, 0, "conflicts", "--json", "--config", cfg)
	if conflicts.Conflicts == nil || len(conflicts.Conflicts) != 0 {
		t.Errorf("conflicts --json = %+v, want an empty list", conflicts)
	}

	var lint lintJSON
	decodeJSON(t, &lint, 0, "lint", "--json", "--dir", dir, "--config", cfg)
	if lint.Dir != dir || lint.Findings == nil {
		t.Errorf("lint --json = %+v, want dir %s and no findings", lint, dir)
	}

	var doc doctorJSON
	decodeJSON(t, &doc, 1, "doctor", "--json", "--config", cfg, "--server", srv.URL, "--socket", filepath.Join(t.TempDir(), "none.sock"))
	if len(doc.Checks) == 0 || doc.Checks[0].Name != "config" || doc.OK || doc.Failed == 0 {
		t.Errorf("doctor --json = %+v, want the config check first and the daemon's failure counted", doc)
	}

	data := filepath.Dir(srv.Path)
	var toks tokensJSON
	decodeJSON(t, &toks, 0, "token", "list", "--json", "--data", data, "--config", cfg)
	if len(toks.Tokens) != 1 || len(toks.Tokens[0].Grants) != 1 || toks.Tokens[0].Grants[0].Pattern != "**" {
		t.Errorf("token list --json = %+v, want the one token on **", toks)
	}
}

// admin audit --json prints one event per line; scan --json prints the
// findings, exit 1 with one.
func TestJSONLinesAndScan(t *testing.T) {
	srv := servertest.Start(t)
	dir := t.TempDir()
	cfg := writeConfig(t, "")
	if err := os.WriteFile(filepath.Join(dir, "MEMORY.md"), []byte("# team\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("TEAMMEMD_TOKEN", srv.Token)
	if _, stderr, code := runCLI(t, "sync", "--dir", dir, "--repo", "acme/app", "--server", srv.URL, "--config", cfg); code != 0 {
		t.Fatalf("sync: exit %d %s", code, stderr)
	}
	stdout, stderr, code := runCLI(t, "admin", "audit", "--json", "--data", filepath.Dir(srv.Path), "--config", cfg)
	if code != 0 {
		t.Fatalf("admin audit --json: exit %d %s", code, stderr)
	}
	var events []auditEvent
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var ev auditEvent
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("admin audit --json line %q: %v", sc.Text(), err)
		}
		events = append(events, ev)
	}
	if len(events) != 1 || events[0].Action != store.AuditWrote || events[0].Key != "MEMORY.md" {
		t.Errorf("admin audit --json = %+v, want one write of MEMORY.md", events)
	}

	secret := filepath.Join(t.TempDir(), "deploy.md")
	if err := os.WriteFile(secret, []byte(scantest.AWSNote(scantest.AWSKey())), 0o644); err != nil {
		t.Fatal(err)
	}
	var findings []scan.Finding
	decodeJSON(t, &findings, 1, "scan", secret, "--json", "--cache", "", "--config", cfg)
	if len(findings) != 1 || findings[0].RuleID != scantest.AWSRule || findings[0].Line != 3 {
		t.Errorf("scan --json = %+v, want the AWS key on line 3", findings)
	}
}

// status --json and service status --json decode into their schemas with a
// daemon running.
func TestStatusJSON(t *testing.T) {
	srv := servertest.Start(t)
	_, bin := serviceHome(t)
	t.Setenv("TEAMMEMD_TOKEN", "")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(srv.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, fmt.Sprintf("[client]\nserver = %q\ntoken_file = %q\n[[daemon.repo]]\ndir = %q\nrepo = \"acme/app\"\n",
		srv.URL, tokenFile, t.TempDir()))
	if _, stderr, code := serviceCLI(t, service.Systemd{}, &cmdRecorder{}, "", "install", "--binary", bin, "--config", cfg); code != 0 {
		t.Fatalf("install: exit %d %s", code, stderr)
	}
	d := runInBackground(t, cfg, "watching team directory")
	sock := d.sock

	var st daemon.Status
	decodeJSON(t, &st, 0, "status", "--json", "--socket", sock)
	if len(st.Repos) != 1 || st.Repos[0].Repo != "acme/app" || st.Version != version {
		t.Errorf("status --json = %+v, want acme/app and version %s", st, version)
	}

	rec := &cmdRecorder{answers: map[string]string{
		"systemctl --user is-enabled teammemd.service": "enabled\n",
		"systemctl --user is-active teammemd.service":  "active\n",
	}}
	stdout, stderr, code := serviceCLI(t, service.Systemd{}, rec, "", "status", "--json", "--socket", sock)
	var ss serviceStatusJSON
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ss); err != nil || code != 0 {
		t.Fatalf("service status --json: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	if !ss.Installed || !ss.Running || ss.Daemon == nil || len(ss.Daemon.Repos) != 1 {
		t.Errorf("service status --json = %+v, want installed, running and the daemon's one repo", ss)
	}
	d.stop(t)
}
