package memsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/scan"
	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/api"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// A server whose rules flag a key name the client's do not refuses it and
// names it redacted; the client pins the refusal on that entry by its
// redacted name, pushes the rest, and shows and logs the key redacted.
func TestRefusalOfRedactedKeyPinnedOnTheEntry(t *testing.T) {
	srv := servertest.Start(t, servertest.WithScanner(realScanner(t)))
	aws := scantest.AWSKey()
	var logs bytes.Buffer
	a := newPeer(t, srv.URL, srv.Token, nil)
	a.eng.log = slog.New(slog.NewTextHandler(&logs, nil))
	a.write(t, "a.md", "fine\n")
	a.write(t, "creds/"+aws+".md", "plain notes\n")
	a.write(t, "c.md", "also fine\n")
	rep, err := a.eng.Sync(context.Background())
	if err != nil {
		t.Fatalf("Sync with a key the server refuses = %v, want the other files pushed", err)
	}
	if got := serverEntries(t, srv); len(got) != 2 || got["a.md"] == "" || got["c.md"] == "" {
		t.Errorf("server holds %v, want a.md and c.md", keysOf(got))
	}
	if shown := api.RedactKey("creds/" + aws + ".md"); len(rep.Skipped) != 1 || !skippedFor(rep, shown, api.CodeSecretDetected) {
		t.Errorf("Skipped = %+v, want %s refused with %s", rep.Skipped, shown, api.CodeSecretDetected)
	}
	if rep := a.sync(t); rep.PUTs != 0 || len(rep.Skipped) != 1 {
		t.Errorf("next Sync = %d PUTs, skipped %+v; want none sent and the key still reported", rep.PUTs, rep.Skipped)
	}
	for what, text := range map[string]string{"the report": fmtReport(rep), "the log": logs.String()} {
		if leaks := scantest.Leaks(text, aws, 8); len(leaks) > 0 {
			t.Errorf("%s holds the secret: %v", what, leaks)
		}
	}
}

// fmtReport renders every key and reason of a report, for a grep.
func fmtReport(rep Report) string {
	return fmt.Sprintf("%+v", rep)
}

func realScanner(t *testing.T) *scan.Scanner {
	t.Helper()
	sc, err := scan.New(scan.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// treeOf returns every file name and content under root, for a grep.
func treeOf(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(p + "\n")
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			b.Write(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A state file written before names were scanned records a key holding a
// secret in every map; the next sync leaves none of it in the state file.
func TestStateFileDropsSecretNames(t *testing.T) {
	srv := servertest.Start(t)
	aws := scantest.AWSKey()
	key := "creds/" + aws + ".md"
	a := newPeer(t, srv.URL, srv.Token, realScanner(t))
	a.write(t, "MEMORY.md", "# team\n")
	a.sync(t)
	sum := api.EntryChecksum("old\n")
	st, _, err := a.eng.state.load(testRepo, a.eng.client.Host(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	st.ServerChecksums[key], st.Base[key] = sum, sum
	st.Tombstones = map[string]int64{key: 1}
	st.Rejected = map[string]Rejection{key: {Checksum: sum, Code: api.CodeSecretDetected}}
	st.Index[key] = IndexEntry{Size: 4, Hash: sum}
	st.Conflicts = []Conflict{{Key: key, Path: filepath.Join(a.state, "old-copy.md"), Source: "local"}}
	if err := a.eng.state.save(st); err != nil {
		t.Fatal(err)
	}
	rep := a.sync(t)
	if leaks := scantest.Leaks(treeOf(t, a.state), aws, 8); len(leaks) > 0 {
		t.Errorf("the state directory holds the secret after a sync: %v", leaks)
	}
	if len(rep.Blocked) != 1 || !rep.Blocked[0].Deletion || rep.Blocked[0].Key != api.RedactKey(key) {
		t.Errorf("Blocked = %+v, want the deletion of %s held back", rep.Blocked, api.RedactKey(key))
	}
	if leaks := scantest.Leaks(fmtReport(rep), aws, 8); len(leaks) > 0 {
		t.Errorf("the report holds the secret: %v", leaks)
	}
}

// A key holding a secret that both this machine and the server hold, with
// different content, keeps the local file as it is: nothing is written
// over it, no conflict copy is named after it, and it is reported redacted.
func TestSecretNameEditedOnBothSides(t *testing.T) {
	srv := servertest.Start(t)
	aws := scantest.AWSKey()
	key := aws + ".md"
	if _, err := srv.Store.Apply(context.Background(), store.Write{
		Repo: testRepo, Entries: map[string]string{key: "server's\n"}, Subject: "old-client", Time: time.Now(), MaxEntries: 10,
	}); err != nil {
		t.Fatal(err)
	}
	a := newPeer(t, srv.URL, srv.Token, realScanner(t))
	a.write(t, key, "mine\n")
	rep := a.sync(t)
	if got := a.read(t, key); got != "mine\n" {
		t.Errorf("%s = %q after a sync, want the local content kept", api.RedactKey(key), got)
	}
	if len(rep.Conflicts) != 0 || !skippedFor(rep, api.RedactKey(key), "name holds a secret") || len(rep.Blocked) != 1 {
		t.Errorf("report = %+v, want the key skipped on pull and held back on push, redacted, and no conflict copy", rep)
	}
	for what, text := range map[string]string{"the state directory": treeOf(t, a.state), "the report": fmtReport(rep)} {
		if leaks := scantest.Leaks(text, aws, 8); len(leaks) > 0 {
			t.Errorf("%s holds the secret: %v", what, leaks)
		}
	}
}

// An error that names a key holding a secret, or a directory whose name
// holds one, shows it redacted and keeps its chain.
func TestShownErrRedactsSecretNames(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, realScanner(t))
	aws := scantest.AWSKey()
	key := "creds/" + aws + "/x.md"
	if _, named := a.eng.nameRules(key); !named {
		t.Fatalf("nameRules(%q) found nothing", key)
	}
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("read %s: %w", key, fs.ErrPermission), "read " + api.RedactKey(key) + ": permission denied"},
		{fmt.Errorf("stat %s: %w", "creds/"+aws, fs.ErrPermission), "stat " + api.RedactKey("creds/"+aws) + ": permission denied"},
		{fmt.Errorf("read %s: %w", "other.md", fs.ErrPermission), "read other.md: permission denied"},
	}
	for _, tt := range tests {
		got := a.eng.shownErr(tt.err)
		if got.Error() != tt.want || !errors.Is(got, fs.ErrPermission) {
			t.Errorf("shownErr(%q) = %q, want %q wrapping fs.ErrPermission", tt.err, got, tt.want)
		}
	}
}
