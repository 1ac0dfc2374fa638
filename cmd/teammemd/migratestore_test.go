package main

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

var migrateBase = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// seedSQLite writes repos with live entries, tombstones (one compacted),
// history (some of it pruned, some with its client) and tokens, one
// revoked, into a SQLite database in dir.
func seedSQLite(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i, w := range []store.Write{
		{Repo: "acme/app", Entries: map[string]string{"MEMORY.md": "# v1\n", "b.md": "b", "gone.md": "soon gone"}},
		{Repo: "acme/app", Entries: map[string]string{"MEMORY.md": "# v2\n", "nul.md": "a\x00b"}},
		{Repo: "acme/app", Deletes: []string{"gone.md"}},
		{Repo: "acme/app", Entries: map[string]string{"MEMORY.md": "# v3\n"}},
		{Repo: "gitlab.example.com/acme/web", Entries: map[string]string{"notes/é.md": "café\r\n", "empty.md": ""}},
		{Repo: "acme/compacted", Entries: map[string]string{"a.md": "a", "b.md": "b", "c.md": "c"}},
		{Repo: "acme/compacted", Deletes: []string{"a.md"}},
		{Repo: "acme/compacted", Deletes: []string{"b.md"}, Deletions: store.DeletionBound{Max: 1}}, // compacts a.md's tombstone
	} {
		w.Subject, w.Time = "ann", migrateBase.Add(time.Duration(i)*time.Second+time.Duration(i)*1234567)
		if i%2 == 0 {
			w.Client = "token:tok1 via teammemd/1.4.0 (linux/amd64) on ann-laptop"
		}
		if _, err := st.Apply(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := st.PruneHistory(ctx, 1, migrateBase.Add(time.Hour)); err != nil || n == 0 {
		t.Fatalf("PruneHistory() = %d, %v, want some pruned", n, err)
	}
	for i, id := range []string{"tok1", "tok2"} {
		tok := store.Token{ID: id, Subject: "s-" + id, Hash: "hash-" + id, CreatedAt: migrateBase.Add(time.Duration(i) * time.Minute),
			Grants: []store.Grant{{Pattern: "acme/**", Level: store.LevelWrite}}}
		if err := st.CreateToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.RevokeToken(ctx, "tok2", migrateBase.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
}

// sameStores fails the test unless every repo and token of the SQLite
// database in dir is in db exactly.
func sameStores(t *testing.T, dir, db string) {
	t.Helper()
	ctx := context.Background()
	src, err := sqlite.Open(ctx, filepath.Join(dir, sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := postgres.Open(ctx, db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	repos, err := src.Repos(ctx)
	if err != nil || len(repos) == 0 {
		t.Fatalf("Repos() = %v, %v", repos, err)
	}
	for _, repo := range repos {
		want, err1 := src.ExportRepo(ctx, repo)
		got, err2 := dst.ExportRepo(ctx, repo)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("repo %s in PostgreSQL = %+v, %v\nwant the SQLite one %+v, %v", repo, got, err2, want, err1)
		}
	}
	wantToks, err1 := src.ListTokens(ctx)
	gotToks, err2 := dst.ListTokens(ctx)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(gotToks, wantToks) {
		t.Errorf("tokens in PostgreSQL = %+v, %v, want %+v, %v", gotToks, err2, wantToks, err1)
	}
}

// TestMigrateStore copies a SQLite database into PostgreSQL, checks the
// copy is exact, and runs the command again: after nothing changed, after
// the source moved on, and after the destination was written.
func TestMigrateStore(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	seedSQLite(t, dir)
	db, pw := withPassword(t, pgtest.Database(t))
	migrate := func(wantCode int, want ...string) {
		t.Helper()
		stdout, stderr, code := runCLI(t, "migrate-store", "--from", dir, "--to", db)
		if code != wantCode {
			t.Fatalf("migrate-store = exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, wantCode, stdout, stderr)
		}
		for _, w := range want {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("migrate-store output lacks %q:\n%s%s", w, stdout, stderr)
			}
		}
		if strings.Contains(stdout+stderr, pw) {
			t.Errorf("migrate-store output shows the password:\n%s%s", stdout, stderr)
		}
	}
	migrate(0, "acme/app: copied", "gitlab.example.com/acme/web: copied", "3 copied", "tokens: 2 copied", "verified")
	sameStores(t, dir, db)
	first := pgStoreID(t, db)
	if src := sqliteStoreID(t, dir); first == src {
		t.Errorf("store identity after migrate-store = %s, the SQLite database's; want a new one", first)
	}

	migrate(0, "acme/app: up to date", "0 copied, 0 updated, 3 up to date", "tokens: 0 copied, 0 revoked, 2 already there")
	sameStores(t, dir, db)
	if again := pgStoreID(t, db); again == first {
		t.Errorf("store identity after migrate-store ran again = %s, unchanged; want a new one", again)
	}

	ctx := context.Background()
	src, err := sqlite.Open(ctx, filepath.Join(dir, sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Apply(ctx, store.Write{Repo: "acme/app", Entries: map[string]string{"late.md": "written after the copy"}, Subject: "bob", Time: migrateBase.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Apply(ctx, store.Write{Repo: "acme/compacted", Deletes: []string{"c.md"}, Subject: "bob", Time: migrateBase.Add(time.Hour),
		Deletions: store.DeletionBound{Max: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := src.RevokeToken(ctx, "tok1", migrateBase.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	src.Close()
	migrate(0, "acme/app: updated", "acme/compacted: updated", "gitlab.example.com/acme/web: up to date", "tokens: 0 copied, 1 revoked")
	sameStores(t, dir, db)

	dst, err := postgres.Open(ctx, db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	written, err := dst.Apply(ctx, store.Write{Repo: "gitlab.example.com/acme/web", Entries: map[string]string{"pg.md": "written on PostgreSQL"}, Subject: "carl", Time: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	migrate(1, "gitlab.example.com/acme/web: diverged", "was written in the destination since it was copied", "acme/app: up to date")
	snap, err := dst.Snapshot(ctx, "gitlab.example.com/acme/web", true)
	if err != nil || snap.Checksum != written.Checksum || snap.Entries["pg.md"] != "written on PostgreSQL" {
		t.Errorf("diverged repo after migrate-store = %s %v, %v, want it left at %s", snap.Checksum, snap.Entries, err, written.Checksum)
	}
}

func TestMigrateStoreErrors(t *testing.T) {
	isolateConfig(t)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"migrate-store", "--to", "postgres://db/x"}, 2, "--from is required"},
		{[]string{"migrate-store", "--from", "/x"}, 2, "--to is required"},
		{[]string{"migrate-store", "--from", "/x", "--to", "mysql://u:pw@db/x"}, 2, "must be a postgres://"},
		{[]string{"migrate-store", "--from", filepath.Join(t.TempDir(), "none"), "--to", "postgres://db/x"}, 1, "no server database"},
	}
	for _, tt := range tests {
		_, stderr, code := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("teammemd %s = exit %d, stderr %q, want %d and %q", strings.Join(tt.args[1:], " "), code, stderr, tt.code, tt.want)
		}
	}
}

// TestMigrateStorePurges purges revisions in the SQLite database after it
// was copied, one of them the live revision of a key (a new repo version)
// and one an old revision (the repo's version stays): running migrate-store
// again drops their content in PostgreSQL too and copies the audit
// records, once however often it runs.
func TestMigrateStorePurges(t *testing.T) {
	ctx := context.Background()
	dir, src, db := copiedWithLeak(t)
	for _, p := range []store.Purge{
		{Repo: "acme/app", Key: "MEMORY.md", Versions: []int64{5}, Actor: "root", Reason: "leak", Time: migrateBase.Add(time.Hour)},
		{Repo: "gitlab.example.com/acme/web", Key: "notes/é.md", IncludeLive: true, Actor: "root", Time: migrateBase.Add(2 * time.Hour)},
	} {
		if _, err := src.Purge(ctx, p); err != nil {
			t.Fatalf("Purge(%s %s) error = %v", p.Repo, p.Key, err)
		}
	}
	want, err := src.Purges(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if stdout, stderr, code := runCLI(t, "migrate-store", "--from", dir, "--to", db); code != 0 {
			t.Fatalf("migrate-store after purges = exit %d\n%s%s", code, stdout, stderr)
		}
		sameStores(t, dir, db)
		dst, err := postgres.Open(ctx, db, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := dst.Purges(ctx, "")
		dst.Close()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Purges() in PostgreSQL = %+v, %v, want the SQLite ones %+v", got, err, want)
		}
	}
}

// TestMigrateStoreProposals copies the proposals with their ids and
// decisions, a purged one without content, a decision made since on the
// next run, and lets the destination's next proposal follow them.
func TestMigrateStoreProposals(t *testing.T) {
	ctx := context.Background()
	dir, src := seededSource(t)
	var ids []int64
	for i := range 3 {
		p, err := src.Propose(ctx, store.Proposal{Repo: "acme/app", Subject: "ann", Time: migrateBase.Add(time.Duration(i) * time.Minute),
			Base: map[string]string{"n.md": ""}, Entries: map[string]string{"n.md": "note\r\n"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	decide := func(id int64, state store.ProposalState) {
		t.Helper()
		if _, err := src.DecideProposal(ctx, store.Decision{ID: id, State: state, Reviewer: "carol", Reason: "why", Time: migrateBase.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	decide(ids[0], store.ProposalRejected)
	if _, err := src.PurgeProposal(ctx, ids[0], "carol", migrateBase.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	decide(ids[1], store.ProposalApproved)
	db := pgtest.Database(t)
	same := func(what string) {
		t.Helper()
		if stdout, stderr, code := runCLI(t, "migrate-store", "--from", dir, "--to", db); code != 0 {
			t.Fatalf("%s: migrate-store = exit %d\n%s%s", what, code, stdout, stderr)
		}
		dst, err := postgres.Open(ctx, db, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Close()
		want, err1 := src.ListProposals(ctx, store.ProposalQuery{})
		got, err2 := dst.ListProposals(ctx, store.ProposalQuery{})
		if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: proposals in PostgreSQL = %+v, %v\nwant the SQLite ones %+v, %v", what, got, err2, want, err1)
		}
	}
	same("first copy")
	decide(ids[2], store.ProposalRejected)
	same("after a decision in the source")
	dst, err := postgres.Open(ctx, db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	next, err := dst.Propose(ctx, store.Proposal{Repo: "acme/app", Subject: "ann", Time: migrateBase, Base: map[string]string{"x.md": ""}})
	if err != nil || next.ID <= ids[2] {
		t.Errorf("Propose() in PostgreSQL after the copy = %d, %v, want an id after %d", next.ID, err, ids[2])
	}
}

// copiedWithLeak seeds a SQLite database in a new directory, writes a
// secret into acme/app's MEMORY.md and then its fix (versions 5 and 6),
// and copies it to a new PostgreSQL database with migrate-store. It
// returns the directory, the open SQLite store (closed with the test) and
// the PostgreSQL URL.
func copiedWithLeak(t *testing.T) (string, *sqlite.Store, string) {
	t.Helper()
	ctx := context.Background()
	dir, src := seededSource(t)
	for i, v := range []string{"# secret\n", "# fixed\n"} {
		w := store.Write{Repo: "acme/app", Entries: map[string]string{"MEMORY.md": v}, Subject: "ann", Time: migrateBase.Add(time.Duration(i+1) * time.Minute)}
		if _, err := src.Apply(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	db := pgtest.Database(t)
	if _, stderr, code := runCLI(t, "migrate-store", "--from", dir, "--to", db); code != 0 {
		t.Fatalf("migrate-store = exit %d, stderr %s", code, stderr)
	}
	return dir, src, db
}

// seededSource seeds a SQLite database in a new directory, as seedSQLite
// does, and returns the directory and the store open on it, closed with
// the test.
func seededSource(t *testing.T) (string, *sqlite.Store) {
	t.Helper()
	isolateConfig(t)
	dir := t.TempDir()
	seedSQLite(t, dir)
	src, err := sqlite.Open(context.Background(), filepath.Join(dir, sqlite.FileName), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return dir, src
}
