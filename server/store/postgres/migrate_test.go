package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
	"github.com/teammemd/teammemd/server/store/storetest"
)

func TestMigrationsNumbered(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatalf("loadMigrations() error = %v", err)
	}
	if len(ms) != SchemaVersion || SchemaVersion < 1 {
		t.Errorf("loadMigrations() = %d steps, SchemaVersion %d, want equal and at least 1", len(ms), SchemaVersion)
	}
}

// TestConcurrentOpenMigratesOnce opens several stores on a fresh database
// at once, as replicas starting together do: every Open succeeds and the
// schema is migrated exactly once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	db := pgtest.Database(t)
	const replicas = 4
	var wg sync.WaitGroup
	errs := make([]error, replicas)
	for i := range replicas {
		wg.Go(func() {
			s, err := Open(context.Background(), db, Options{})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open(replica %d) error = %v", i, err)
		}
	}
	s := openURL(t, db)
	var rows, version int
	if err := s.pool.QueryRow(context.Background(), "SELECT count(*), max(version) FROM teammemd_schema_migrations").Scan(&rows, &version); err != nil {
		t.Fatal(err)
	}
	if rows != SchemaVersion || version != SchemaVersion {
		t.Errorf("schema migrations table = %d rows up to version %d, want %d rows up to %d", rows, version, SchemaVersion, SchemaVersion)
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name, setup, want string
	}{
		{"newer schema", "", "newer than this teammemd supports"},
		{"foreign table", "CREATE TABLE repos (name text)", `not a teammemd database: it has a table "repos"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := pgtest.Schema(t)
			if tt.setup != "" {
				pgtest.Exec(t, db, tt.setup)
			} else {
				openURL(t, db).Close()
				pgtest.Exec(t, db, "INSERT INTO teammemd_schema_migrations (version, name) VALUES ($1, 'from the future')", SchemaVersion+1)
			}
			s, err := Open(context.Background(), db, Options{})
			if err == nil {
				s.Close()
				t.Fatalf("Open() error = nil, want one saying %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open() error = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

// TestMigrationLogged: a migration of an existing database says so before
// it starts, from which version to which, and when it is done, with the
// time it took, as on SQLite; a new database says nothing of it.
func TestMigrationLogged(t *testing.T) {
	const marker = "CREATE TABLE identity_bindings"
	db := schemaBefore(t, marker, "")
	before := slices.IndexFunc(migrations, func(m migration) bool { return strings.Contains(m.sql, marker) })
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	s, err := Open(context.Background(), db, Options{Logger: log})
	storetest.CloseAtEnd(t, s, err)
	versions := fmt.Sprintf(`"from":%d,"to":%d`, before, SchemaVersion)
	for _, want := range []string{`"msg":"migrating database schema","store":`, `"msg":"database schema migrated","store":`, `"took":`} {
		if !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), versions) {
			t.Errorf("logs = %s, want %s with %s", logs.String(), want, versions)
		}
	}
	if i, j := strings.Index(logs.String(), "migrating database schema"), strings.Index(logs.String(), "database schema migrated"); i < 0 || j < i {
		t.Errorf("logs = %s, want migrating before migrated", logs.String())
	}
	logs.Reset()
	s, err = Open(context.Background(), pgtest.Schema(t), Options{Logger: log})
	storetest.CloseAtEnd(t, s, err)
	if strings.Contains(logs.String(), "migrat") {
		t.Errorf("a new database logged %s", logs.String())
	}
}

// TestKeepSchema: with KeepSchema, Open leaves an older schema as it is,
// with store.ErrOlderSchema, and still creates a new database's schema.
func TestKeepSchema(t *testing.T) {
	db := schemaBefore(t, "CREATE TABLE identity_bindings", "")
	s, err := Open(context.Background(), db, Options{KeepSchema: true})
	if err == nil {
		s.Close()
	}
	if !errors.Is(err, store.ErrOlderSchema) {
		t.Errorf("Open(older schema, KeepSchema) error = %v, want store.ErrOlderSchema", err)
	}
	s, err = Open(context.Background(), pgtest.Schema(t), Options{KeepSchema: true})
	storetest.CloseAtEnd(t, s, err)
}
