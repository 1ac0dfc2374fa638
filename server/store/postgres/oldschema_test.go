package postgres

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

// schemaBefore returns the URL of a new database at the schema just
// before the migration whose SQL holds marker, recorded as applied, with
// rows put in by the SQL of rows.
func schemaBefore(t *testing.T, marker, rows string) string {
	t.Helper()
	before := slices.IndexFunc(migrations, func(m migration) bool { return strings.Contains(m.sql, marker) })
	if before < 0 { // before is also the schema version before that migration
		t.Fatalf("no migration holds %q", marker)
	}
	db := pgtest.Schema(t)
	var steps []string
	for _, m := range migrations[:before] {
		steps = append(steps, m.sql)
	}
	pgtest.Exec(t, db, strings.Join(steps, ";\n")+`;
		CREATE TABLE teammemd_schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
		INSERT INTO teammemd_schema_migrations (version, name) SELECT g, 'step ' || g FROM generate_series(1, `+strconv.Itoa(before)+`) g;
		`+rows)
	return db
}
