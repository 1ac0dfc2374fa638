package postgres

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teammemd/teammemd/server/store"
)

// migrationFiles are the schema steps, NNNN_name.sql: step N takes schema
// version N-1 to N. Never edit a released step; add the next one.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrateLockID is the advisory lock held while the schema is migrated, so
// replicas starting together migrate one after the other ("tmmdmigr").
const migrateLockID int64 = 0x746d6d646d696772

// migration is one schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations are the embedded steps in order; a malformed set is a build
// mistake that every test catches.
var migrations = mustLoadMigrations()

// SchemaVersion is the schema version this build writes.
var SchemaVersion = len(migrations)

func mustLoadMigrations() []migration {
	ms, err := loadMigrations()
	if err != nil {
		panic(err) // the files are compiled in: only a broken build gets here
	}
	return ms
}

// loadMigrations reads the embedded steps, which must be numbered 1 to N.
func loadMigrations() ([]migration, error) {
	files, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []migration
	for i, f := range files {
		num, _, ok := strings.Cut(f.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != i+1 {
			return nil, fmt.Errorf("migration %s: want the number %04d", f.Name(), i+1)
		}
		sql, err := migrationFiles.ReadFile(path.Join("migrations", f.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", f.Name(), err)
		}
		ms = append(ms, migration{version: v, name: f.Name(), sql: string(sql)})
	}
	return ms, nil
}

// migrate brings the schema up to SchemaVersion in one transaction under the
// migration lock. A schema newer than this build, or a database holding
// tables of another application under teammemd's names, is refused. The
// migration of an existing schema is logged before it starts and once it
// is committed, with the time it took; a new schema's creation is not.
// With keep, an existing schema older than this build's is refused instead.
func migrate(ctx context.Context, pool *pgxpool.Pool, keep bool, log *slog.Logger) error {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	found, err := lockedSchemaVersion(ctx, tx)
	if err != nil || found == SchemaVersion {
		return err
	}
	if found > 0 && keep {
		return fmt.Errorf("database schema version %d, older than this teammemd's %d: %w", found, SchemaVersion, store.ErrOlderSchema)
	}
	if found > 0 {
		log.Info("migrating database schema", "from", found, "to", SchemaVersion)
	}
	start := time.Now()
	for _, m := range migrations[found:] {
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("migrate schema to version %d (%s): %w", m.version, m.name, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO teammemd_schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name); err != nil {
			return fmt.Errorf("record schema version %d: %w", m.version, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit migration: %w", err)
	}
	if found > 0 {
		log.Info("database schema migrated", "from", found, "to", SchemaVersion, "took", time.Since(start).Round(time.Millisecond).String())
	}
	return nil
}

// lockedSchemaVersion takes the migration lock for tx and returns the
// schema version it finds, refusing one newer than this build and a
// database without teammemd's schema that holds tables of its names.
func lockedSchemaVersion(ctx context.Context, tx pgx.Tx) (int, error) {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrateLockID); err != nil {
		return 0, fmt.Errorf("take the migration lock: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS teammemd_schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return 0, fmt.Errorf("create the schema version table: %w", err)
	}
	var found int
	if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM teammemd_schema_migrations").Scan(&found); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if found > SchemaVersion {
		return found, fmt.Errorf("database schema version %d is newer than this teammemd supports (%d): upgrade teammemd", found, SchemaVersion)
	}
	if found == 0 {
		if err := refuseForeignTables(ctx, tx); err != nil {
			return found, err
		}
	}
	return found, nil
}

// teammemdTables are the tables the schema steps create.
var teammemdTables = []string{"repos", "entries", "revisions", "tokens", "purges", "meta"}

// refuseForeignTables refuses a database without teammemd's schema that
// already has a table of one of teammemd's names: it belongs to something
// else.
func refuseForeignTables(ctx context.Context, tx pgx.Tx) error {
	for _, name := range teammemdTables {
		var exists bool
		if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", name).Scan(&exists); err != nil {
			return fmt.Errorf("read schema: %w", err)
		}
		if exists {
			return fmt.Errorf("not a teammemd database: it has a table %q but no teammemd schema version; use an empty database (or schema)", name)
		}
	}
	return nil
}
