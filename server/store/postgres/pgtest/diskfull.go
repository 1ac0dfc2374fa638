package pgtest

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
)

// DiskFull makes PostgreSQL refuse every insert and update of tables, in
// the schema of the database at dbURL (a Schema's URL), with disk_full
// (SQLSTATE 53100), the error it gives when it cannot extend their files
// for want of room, until the function it returns is called. A disk that
// fills for real cannot be had in a test; the refusal is PostgreSQL's
// own, raised inside the write's transaction, which it rolls back.
func DiskFull(t testing.TB, dbURL string, tables ...string) (room func()) {
	t.Helper()
	exec(t, dbURL, `CREATE FUNCTION teammemd_test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full';
		END $$`)
	for _, table := range tables {
		exec(t, dbURL, fmt.Sprintf(`CREATE TRIGGER teammemd_test_disk_full BEFORE INSERT OR UPDATE ON %s
			FOR EACH ROW EXECUTE FUNCTION teammemd_test_disk_full()`, pgx.Identifier{table}.Sanitize()))
	}
	return func() {
		t.Helper()
		exec(t, dbURL, `DROP FUNCTION teammemd_test_disk_full() CASCADE`)
	}
}
