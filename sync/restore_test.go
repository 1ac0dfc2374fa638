package memsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/scan/scantest"
	"github.com/teammemd/teammemd/server/servertest"
	"github.com/teammemd/teammemd/server/store"
)

// removeFile deletes a file of the team directory, as a user would.
func (p *peer) remove(t testing.TB, key string) {
	t.Helper()
	if err := os.Remove(filepath.Join(p.dir, filepath.FromSlash(key))); err != nil {
		t.Fatal(err)
	}
}

// TestRestoreFirstVersion: a note written, overwritten twice and deleted
// comes back at its first version on a teammate's machine: a new
// revision on the server, the file in both team directories.
func TestRestoreFirstVersion(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	b := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "MEMORY.md", "- [deploy](deploy.md)\n")
	a.write(t, "other.md", "other\n")
	for _, v := range []string{"first\n", "second\n", "third\n"} {
		a.write(t, "deploy.md", v)
		a.sync(t)
	}
	a.remove(t, "deploy.md")
	a.sync(t)
	b.sync(t)
	ctx := context.Background()
	revs, err := b.eng.History(ctx, "deploy.md")
	if err != nil {
		t.Fatalf("History(deploy.md) error = %v", err)
	}
	if len(revs) != 4 || !revs[0].Deleted || revs[3].Size == nil || *revs[3].Size != int64(len("first\n")) || revs[3].Content != nil {
		t.Fatalf("History(deploy.md) = %+v, want a deletion and 3 writes without content, the oldest last", revs)
	}
	first, err := b.eng.Revision(ctx, "deploy.md", revs[3].Version)
	if err != nil {
		t.Fatalf("Revision(deploy.md, %d) error = %v", revs[3].Version, err)
	}
	rep, err := b.eng.Restore(ctx, "deploy.md", *first.Content)
	if err != nil {
		t.Fatalf("Restore(deploy.md) error = %v", err)
	}
	if len(rep.Pushed) != 1 || rep.Pushed[0] != "deploy.md" {
		t.Errorf("Restore(deploy.md).Pushed = %v, want [deploy.md]", rep.Pushed)
	}
	if got := b.read(t, "deploy.md"); got != "first\n" {
		t.Errorf("b's deploy.md = %q, want %q", got, "first\n")
	}
	if got := serverEntries(t, srv)["deploy.md"]; got != "first\n" {
		t.Errorf("server deploy.md = %q, want %q", got, "first\n")
	}
	after, err := b.eng.History(ctx, "deploy.md")
	if err != nil || len(after) != 5 || after[0].Deleted || after[0].Version <= revs[0].Version {
		t.Errorf("History(deploy.md) after restore = %d revisions (%v), want 5, the newest a write", len(after), err)
	}
	a.sync(t)
	if got := a.read(t, "deploy.md"); got != "first\n" {
		t.Errorf("a's deploy.md after sync = %q, want %q", got, "first\n")
	}
}

// TestRestoreKeepsLocalEdit: restoring over a file with an edit never
// pushed keeps the edit as a conflict copy.
func TestRestoreKeepsLocalEdit(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "n.md", "one\n")
	a.sync(t)
	a.write(t, "n.md", "two\n")
	a.sync(t)
	a.write(t, "n.md", "unpushed edit\n")
	rep, err := a.eng.Restore(context.Background(), "n.md", "one\n")
	if err != nil {
		t.Fatalf("Restore(n.md) error = %v", err)
	}
	if len(rep.Conflicts) != 1 {
		t.Fatalf("Restore(n.md).Conflicts = %+v, want the unpushed edit kept", rep.Conflicts)
	}
	if data, err := os.ReadFile(rep.Conflicts[0].Path); err != nil || string(data) != "unpushed edit\n" {
		t.Errorf("conflict copy = %q, %v, want %q", data, err, "unpushed edit\n")
	}
	if got := serverEntries(t, srv)["n.md"]; got != "one\n" {
		t.Errorf("server n.md = %q, want %q", got, "one\n")
	}
}

// TestRestoreSecretNotPushed: a revision that holds a secret by today's
// rules is written locally but not pushed, and says so.
func TestRestoreSecretNotPushed(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, realScanner(t))
	a.write(t, "n.md", "clean\n")
	a.sync(t)
	leak := scantest.AWSNote(scantest.AWSKey())
	rep, err := a.eng.Restore(context.Background(), "n.md", leak)
	var np *NotPushedError
	if !errors.As(err, &np) {
		t.Fatalf("Restore(n.md, a secret) error = %v, want *NotPushedError", err)
	}
	if !strings.Contains(np.Error(), "written into "+a.dir+" but not pushed") {
		t.Errorf("Restore(n.md, a secret) error = %q, want it to name the directory written, %s", np, a.dir)
	}
	if len(rep.Blocked) != 1 {
		t.Errorf("Restore(n.md, a secret).Blocked = %+v, want n.md", rep.Blocked)
	}
	if got := serverEntries(t, srv)["n.md"]; got != "clean\n" {
		t.Errorf("server n.md = %q, want it unchanged", got)
	}
	if got := a.read(t, "n.md"); got != leak {
		t.Errorf("local n.md = %q, want the restored content kept", got)
	}
}

// TestRestoreRefusesUnsyncableKey: a key the engine never syncs is refused
// before anything is written.
func TestRestoreRefusesUnsyncableKey(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	for _, key := range []string{"../x.md", ".hidden.md", "image.png"} {
		if _, err := a.eng.Restore(context.Background(), key, "x"); err == nil {
			t.Errorf("Restore(%q) = nil, want an error", key)
		}
	}
	entries, _ := os.ReadDir(a.dir)
	if len(entries) != 0 {
		t.Errorf("team directory holds %d entries, want none", len(entries))
	}
}

// TestRepoHistory lists every key's revisions, each naming its key.
func TestRepoHistory(t *testing.T) {
	srv := servertest.Start(t)
	a := newPeer(t, srv.URL, srv.Token, nil)
	a.write(t, "a.md", "a\n")
	a.write(t, "b.md", "b\n")
	a.write(t, "c.md", "c\n")
	a.sync(t)
	a.remove(t, "a.md")
	a.sync(t)
	revs, err := a.eng.History(context.Background(), "")
	if err != nil {
		t.Fatalf("History(whole repo) error = %v", err)
	}
	var got []string
	for _, r := range revs {
		got = append(got, r.Key)
	}
	if strings.Join(got, " ") != "a.md a.md b.md c.md" || !revs[0].Deleted {
		t.Errorf("History(whole repo) keys = %v, want a.md (deleted) a.md b.md c.md", got)
	}
	if _, err := a.eng.History(context.Background(), "never.md"); !errors.Is(err, ErrNoHistory) {
		t.Errorf("History(never.md) error = %v, want ErrNoHistory", err)
	}
}

// TestRestoreNeedsWriteGrant: with a token that may only read, Restore
// refuses before it writes anything: the local file stays as it was and
// the next sync is clean.
func TestRestoreNeedsWriteGrant(t *testing.T) {
	srv := servertest.Start(t)
	writer := newPeer(t, srv.URL, srv.Token, nil)
	writer.write(t, "a.md", "first\n")
	writer.sync(t)
	writer.write(t, "a.md", "second\n")
	writer.sync(t)
	readOnly := srv.CreateToken(t, "reader", store.Grant{Pattern: testRepo, Level: store.LevelRead})
	reader := newPeer(t, srv.URL, readOnly, nil)
	reader.sync(t)
	_, err := reader.eng.Restore(context.Background(), "a.md", "first\n")
	if err == nil || !strings.Contains(err.Error(), "write grant") {
		t.Fatalf("Restore with a read-only token = %v, want a refusal naming the write grant", err)
	}
	if got := reader.read(t, "a.md"); got != "second\n" {
		t.Errorf("after a refused Restore the local file is %q, want it untouched (%q)", got, "second\n")
	}
	if _, err := reader.eng.Sync(context.Background()); err != nil {
		t.Errorf("Sync after a refused Restore = %v, want a clean sync", err)
	}
}

// TestRestoreDeleted: notes deleted here by mistake, whether the mass
// deletion guard held their deletion or it was not sent yet, come back as
// the server holds them now (a teammate's later edit included), and
// nothing is pushed.
func TestRestoreDeleted(t *testing.T) {
	srv := servertest.Start(t)
	a, b := syncedPeers(t, srv)
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		a.remove(t, k)
	}
	var mass *MassDeletionError
	if _, err := a.eng.Sync(context.Background()); !errors.As(err, &mass) {
		t.Fatalf("Sync after deleting 3 of 4 = %v, want the mass deletion guard", err)
	}
	b.write(t, "c.md", "c, edited by b\n")
	b.sync(t)
	before := serverEntries(t, srv)
	rep, err := a.eng.RestoreDeleted(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rep.Pulled, ","); got != "a.md,b.md,c.md" || len(rep.Pushed)+len(rep.SoftDeleted) != 0 {
		t.Errorf("RestoreDeleted wrote %q, pushed %v, deleted %v; want a.md,b.md,c.md and nothing sent", got, rep.Pushed, rep.SoftDeleted)
	}
	for key, want := range map[string]string{"a.md": "a.md\n", "b.md": "b.md\n", "c.md": "c, edited by b\n", "d.md": "d.md\n"} {
		if got := a.read(t, key); got != want {
			t.Errorf("after RestoreDeleted %s = %q, want %q", key, got, want)
		}
	}
	if rep := a.sync(t); len(rep.HeldDeletions)+len(rep.SoftDeleted)+len(rep.Pushed) != 0 {
		t.Errorf("the sync after RestoreDeleted: held %v, deleted %v, pushed %v; want nothing", rep.HeldDeletions, rep.SoftDeleted, rep.Pushed)
	}
	if after := serverEntries(t, srv); len(after) != len(before) || after["c.md"] != before["c.md"] {
		t.Errorf("server entries changed: %v -> %v", before, after)
	}

	a.remove(t, "d.md")
	if rep, err := a.eng.RestoreDeleted(context.Background()); err != nil || strings.Join(rep.Pulled, ",") != "d.md" || a.read(t, "d.md") != "d.md\n" {
		t.Errorf("RestoreDeleted of one deletion not yet sent = %v, %v; want d.md back", rep.Pulled, err)
	}
}
