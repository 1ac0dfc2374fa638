// Package pgtest gives tests a fresh PostgreSQL database of their own. The
// server to use is named by $TEAMMEMD_TEST_POSTGRES, a postgres:// URL whose
// role may create databases; without it the tests skip, unless
// $TEAMMEMD_REQUIRE_POSTGRES=1 (as in CI), which makes them fail instead.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Environment variables read by Database.
const (
	URLEnv     = "TEAMMEMD_TEST_POSTGRES"
	RequireEnv = "TEAMMEMD_REQUIRE_POSTGRES"
)

// Database creates an empty database for the test, drops it (with every
// connection still open to it) when the test ends, and returns its URL. A
// test that disturbs the whole database (its connections, its
// notifications) takes one; others take a Schema, which is quicker.
func Database(t testing.TB) string {
	t.Helper()
	admin, u := adminURL(t)
	name := "teammemd_test_" + randomHex(t)
	exec(t, admin, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	t.Cleanup(func() {
		exec(t, admin, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	})
	u.Path = "/" + name
	return u.String()
}

// Schema creates an empty schema for the test in the database of
// $TEAMMEMD_TEST_POSTGRES, drops it with everything in it when the test
// ends, and returns a URL whose connections use it (search_path).
func Schema(t testing.TB) string {
	t.Helper()
	admin, u := adminURL(t)
	name := "teammemd_test_" + randomHex(t)
	exec(t, admin, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize())
	t.Cleanup(func() {
		exec(t, admin, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE")
	})
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// adminURL returns $TEAMMEMD_TEST_POSTGRES, raw and parsed, or skips (or,
// with $TEAMMEMD_REQUIRE_POSTGRES=1, fails) the test without it.
func adminURL(t testing.TB) (string, *url.URL) {
	t.Helper()
	admin := os.Getenv(URLEnv)
	if admin == "" {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("pgtest: %s=1 but %s is not set: the PostgreSQL tests must run", RequireEnv, URLEnv)
		}
		t.Skipf("pgtest: set %s=postgres://user:password@127.0.0.1:port/db to run the PostgreSQL tests "+
			"(see .ci/run, which starts a throwaway cluster)", URLEnv)
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("pgtest: %s is not a URL", URLEnv)
	}
	return admin, u
}

// Exec runs sql on the database at dbURL, failing the test on an error.
func Exec(t testing.TB, dbURL, sql string, args ...any) {
	t.Helper()
	exec(t, dbURL, sql, args...)
}

func exec(t testing.TB, dbURL, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}

func randomHex(t testing.TB) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return hex.EncodeToString(b)
}
