package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// bindingsStore is a store of either kind with its identity bindings.
type bindingsStore interface {
	store.IdentityBindings
	Close() error
}

// TestAdminIdentity lists the bindings and releases one, on the SQLite
// database in --data and the PostgreSQL one in --store: the released
// subject is free for the next account, the others stay bound.
func TestAdminIdentity(t *testing.T) {
	isolateConfig(t)
	t.Run("SQLite", func(t *testing.T) {
		dir := t.TempDir()
		testAdminIdentity(t, []string{"--data", dir}, func() (bindingsStore, error) {
			return sqlite.Open(context.Background(), filepath.Join(dir, sqlite.FileName), sqlite.Options{})
		})
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		db := pgtest.Database(t)
		testAdminIdentity(t, []string{"--store", db}, func() (bindingsStore, error) {
			return postgres.Open(context.Background(), db, postgres.Options{})
		})
	})
}

func testAdminIdentity(t *testing.T, where []string, open func() (bindingsStore, error)) {
	ctx := context.Background()
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	st, err := open()
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range []store.IdentityBinding{{Subject: "github:alice", AccountID: "1"}, {Subject: "github:bob", AccountID: "2"}} {
		b.BoundAt = at.Add(time.Duration(i) * time.Minute)
		if _, err := st.BindIdentity(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	cli := func(args ...string) (string, string, int) { return runCLI(t, append(args, where...)...) }

	out, stderr, code := cli("admin", "identity", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || strings.Join(strings.Fields(lines[1]), " ") != "github:alice 1 2026-11-22T10:00:00Z" {
		t.Fatalf("admin identity list = exit %d, %q, stderr %q, want a header, alice bound to 1 and bob", code, out, stderr)
	}
	out, stderr, code = cli("admin", "identity", "unbind", "github:alice")
	if code != 0 || !strings.Contains(out, "released github:alice, bound to account 1 since 2026-11-22T10:00:00Z") {
		t.Fatalf("admin identity unbind github:alice = exit %d, %q, stderr %q, want it released", code, out, stderr)
	}
	out, _, code = cli("admin", "identity", "list", "--json")
	var got identityListJSON
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Bindings) != 1 || got.Bindings[0].Subject != "github:bob" ||
		got.Bindings[0].AccountID != "2" || !got.Bindings[0].BoundAt.Equal(at.Add(time.Minute)) {
		t.Errorf("admin identity list --json after the release = exit %d, %q, %v, want bob alone", code, out, err)
	}
	for _, tt := range []struct{ subject, want string }{
		{"github:alice", "github:alice is not bound to an account (teammemd admin identity list lists the bound subjects)"},
		{"alice", "a GitHub login's subject is github:<login>, e.g. github:alice"},
	} {
		if _, stderr, code := cli("admin", "identity", "unbind", tt.subject); code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("admin identity unbind %s = exit %d, stderr %q, want 1 and %q", tt.subject, code, stderr, tt.want)
		}
	}

	st, err = open()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if b, err := st.BindIdentity(ctx, store.IdentityBinding{Subject: "github:alice", AccountID: "2", BoundAt: at.Add(time.Hour)}); err != nil || b.AccountID != "2" {
		t.Errorf("BindIdentity(github:alice to 2) after the release = %+v, %v, want bound to 2", b, err)
	}
}

func TestAdminIdentityArgs(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	for _, args := range [][]string{{"admin", "identity", "unbind"}, {"admin", "identity", "unbind", "github:a", "github:b"}, {"admin", "identity", "unbind", "github:\x07"}} {
		if _, stderr, code := runCLI(t, append(args, "--data", dir)...); code != 2 {
			t.Errorf("teammemd %q = exit %d, stderr %q, want 2", args, code, stderr)
		}
	}
	if _, stderr, code := runCLI(t, "admin", "identity", "list", "--data", dir); code != 1 || !strings.Contains(stderr, "no server database") {
		t.Errorf("admin identity list without a database = exit %d, stderr %q, want 1 and no server database", code, stderr)
	}
}
