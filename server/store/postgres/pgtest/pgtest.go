// Package pgtest gives tests a fresh PostgreSQL database of their own. The
// server to use is named by $TEAMMEMD_TEST_POSTGRES, a postgres:// URL whose
// role may create databases; without it the tests skip, unless
// $TEAMMEMD_REQUIRE_POSTGRES=1 (as in CI), which makes them fail instead.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
	t.Cleanup(func() { dropDatabase(t, admin, name) })
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

// codeInsufficientPrivilege is SQLSTATE insufficient_privilege.
const codeInsufficientPrivilege = "42501"

// dropTries bounds the drops of a test database that an autovacuum
// worker is in: FORCE may not end a process of the server's own, which a
// role without pg_signal_backend is refused (42501) until it has left.
const dropTries = 50

// dropDatabase drops the database name with every connection still open
// to it, trying again, 100 ms apart, while an autovacuum worker is in it.
func dropDatabase(t testing.TB, admin, name string) {
	t.Helper()
	sql := "DROP DATABASE IF EXISTS " + pgx.Identifier{name}.Sanitize() + " WITH (FORCE)"
	var err error
	for range dropTries {
		var pgErr *pgconn.PgError
		if err = tryExec(admin, sql); !errors.As(err, &pgErr) || pgErr.Code != codeInsufficientPrivilege {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}

func exec(t testing.TB, dbURL, sql string, args ...any) {
	t.Helper()
	if err := tryExec(dbURL, sql, args...); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}

// tryExec runs sql on the database at dbURL on a connection of its own.
func tryExec(dbURL, sql string, args ...any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql, args...)
	return err
}

func randomHex(t testing.TB) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return hex.EncodeToString(b)
}
