package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// laneCiphertext is what a personal lane holds, in the tests' seeds.
const laneCiphertext = "-----BEGIN AGE ENCRYPTED FILE----- opaque"

// seedPersonal writes, into a new database in dir, alice's key and two
// lanes of two entries and one, and bob's key without a lane.
func seedPersonal(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	seedPersonalStore(t, st)
}

// seedPersonalStore writes what seedPersonal does into st.
func seedPersonalStore(t *testing.T, st interface {
	store.Store
	store.Personal
}) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for subject, key := range map[string]string{"alice": strings.Repeat("a", 32), "bob": strings.Repeat("b", 32)} {
		if _, err := st.PutPersonalKey(ctx, store.PersonalKey{Subject: subject, KeyID: key, Envelope: "armor", UpdatedAt: at}, ""); err != nil {
			t.Fatal(err)
		}
	}
	for lane, entries := range map[string]map[string]string{
		strings.Repeat("1", 32): {"k1.age": laneCiphertext, "k2.age": laneCiphertext},
		strings.Repeat("2", 32): {"k3.age": laneCiphertext},
	} {
		w := store.Write{Repo: store.PersonalRepo("alice", lane), Subject: "alice", Entries: entries, Time: at.Add(time.Minute),
			Lane: &store.LaneWrite{KeyID: strings.Repeat("a", 32)}}
		if _, err := st.Apply(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAdminPersonalListAndPurge(t *testing.T) {
	dir := t.TempDir()
	seedPersonal(t, dir)
	bytes := 3 * len(laneCiphertext)

	list, stderr, code := runCLI(t, "admin", "personal", "list", "--data", dir)
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "SUBJECT") {
		t.Fatalf("admin personal list = exit %d, %q, stderr %q, want a header and two subjects", code, list, stderr)
	}
	if got := strings.Fields(lines[1]); len(got) != 6 || got[0] != "alice" || got[2] != "2" || got[3] != "3" || got[4] != strconv.Itoa(bytes) {
		t.Errorf("admin personal list alice = %q, want 2 lanes, 3 entries, %d bytes", lines[1], bytes)
	}
	out, _, code := runCLI(t, "admin", "personal", "list", "--data", dir, "--json")
	var got personalListJSON
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Subjects) != 2 {
		t.Fatalf("admin personal list --json = exit %d, %q, %v, want two subjects", code, out, err)
	}
	if a := got.Subjects[0]; a.Subject != "alice" || !a.HasKey || a.Lanes != 2 || a.Entries != 3 || a.Bytes != int64(bytes) || a.LastModified == nil {
		t.Errorf("admin personal list --json alice = %+v, want 2 lanes, 3 entries, %d bytes", a, bytes)
	}
	if b := got.Subjects[1]; b.Subject != "bob" || !b.HasKey || b.Lanes != 0 {
		t.Errorf("admin personal list --json bob = %+v, want a key and no lane", b)
	}

	purged, stderr, code := runCLI(t, "admin", "personal", "purge", "--data", dir, "--subject", "alice", "--actor", "root", "--reason", "left")
	if code != 0 || !strings.Contains(purged, "dropped the personal lanes of alice: 2 lanes, 3 entries") ||
		!strings.Contains(purged, "cannot decrypt") {
		t.Fatalf("admin personal purge = exit %d, %q, stderr %q, want the lanes dropped", code, purged, stderr)
	}
	after, _, _ := runCLI(t, "admin", "personal", "list", "--data", dir)
	if strings.Contains(after, "alice") || !strings.Contains(after, "bob") {
		t.Errorf("admin personal list after the purge = %q, want bob only", after)
	}
	purges, _, _ := runCLI(t, "admin", "purges", "--data", dir)
	if !strings.Contains(purges, store.PersonalAuditRepo) || !strings.Contains(purges, "alice") || !strings.Contains(purges, "root") {
		t.Errorf("admin purges = %q, want the record of alice's personal purge", purges)
	}
	if _, stderr, code := runCLI(t, "admin", "personal", "purge", "--data", dir, "--subject", "alice", "--actor", "root"); code == 0 ||
		!strings.Contains(stderr, "no personal lane") {
		t.Errorf("admin personal purge again = exit %d, stderr %q, want an error saying there is nothing", code, stderr)
	}
	for _, text := range []string{list, out, purged, after, purges} {
		if strings.Contains(text, "opaque") {
			t.Errorf("admin output holds lane content: %q", text)
		}
	}
}

func TestAdminPersonalPurgeNeedsSubject(t *testing.T) {
	dir := t.TempDir()
	seedPersonal(t, dir)
	for _, args := range [][]string{
		{"--data", dir},
		{"--data", dir, "--subject", "bad\x00subject"},
	} {
		_, stderr, code := runCLI(t, append([]string{"admin", "personal", "purge"}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, "--subject") {
			t.Errorf("admin personal purge %q = exit %d, stderr %q, want a usage error about --subject", args, code, stderr)
		}
	}
}

func TestAdminPersonalOnPostgres(t *testing.T) {
	db := pgtest.Schema(t)
	st, err := postgres.Open(context.Background(), db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seedPersonalStore(t, st)
	st.Close()
	out, stderr, code := runCLI(t, "admin", "personal", "list", "--store", db, "--json")
	var got personalListJSON
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Subjects) != 2 || got.Subjects[0].Entries != 3 {
		t.Fatalf("admin personal list --store = exit %d, %q, stderr %q, want alice's 3 entries and bob", code, out, stderr)
	}
	out, stderr, code = runCLI(t, "admin", "personal", "purge", "--store", db, "--subject", "alice", "--actor", "root")
	if code != 0 || !strings.Contains(out, "2 lanes, 3 entries") {
		t.Fatalf("admin personal purge --store = exit %d, %q, stderr %q, want alice's lanes dropped", code, out, stderr)
	}
	out, _, _ = runCLI(t, "admin", "personal", "list", "--store", db)
	if strings.Contains(out, "alice") {
		t.Errorf("admin personal list --store after the purge = %q, want no alice", out)
	}
}

// TestAdminPersonalListEscapesSubjects: a subject is an identity
// provider's claim; the listing prints it escaped, one row a subject.
func TestAdminPersonalListEscapesSubjects(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := store.PersonalKey{Subject: "mallory\x1b[2J\nx", KeyID: strings.Repeat("m", 32), Envelope: "armor", UpdatedAt: time.Now()}
	if _, err := st.PutPersonalKey(context.Background(), k, ""); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	list, stderr, code := runCLI(t, "admin", "personal", "list", "--data", dir)
	if code != 0 {
		t.Fatalf("admin personal list = exit %d, stderr %q", code, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(list), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], `mallory\x1b[2J\nx `) {
		t.Errorf("admin personal list = %q, want the subject escaped on one row", list)
	}
}
