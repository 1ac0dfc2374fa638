package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/teammemd/teammemd/server/store"
)

// applicationID marks a teammemd database file ("tmmd").
const applicationID = 0x746d6d64

// migrations upgrade the schema one version at a time: migrations[i] takes
// user_version i to i+1. Never edit a released step; append a new one.
var migrations = []string{
	`CREATE TABLE repos (
		id            INTEGER PRIMARY KEY,
		slug          TEXT NOT NULL UNIQUE,
		version       INTEGER NOT NULL,
		last_modified INTEGER NOT NULL, -- Unix ns
		checksum      TEXT NOT NULL
	);
	CREATE TABLE entries (
		repo_id    INTEGER NOT NULL REFERENCES repos(id),
		key        TEXT NOT NULL COLLATE BINARY,
		checksum   TEXT,    -- NULL for a tombstone
		value      BLOB,    -- NULL for a tombstone
		deleted_at INTEGER, -- Unix ms, set for a tombstone
		PRIMARY KEY (repo_id, key)
	) WITHOUT ROWID;
	CREATE TABLE revisions (
		repo_id  INTEGER NOT NULL REFERENCES repos(id),
		key      TEXT NOT NULL COLLATE BINARY,
		version  INTEGER NOT NULL,
		checksum TEXT,    -- NULL for a deletion
		subject  TEXT NOT NULL,
		time     INTEGER NOT NULL, -- Unix ns
		content  BLOB,    -- NULL for a deletion or once pruned
		PRIMARY KEY (repo_id, key, version)
	) WITHOUT ROWID;
	CREATE INDEX revisions_time ON revisions (time);
	CREATE TABLE tokens (
		id         TEXT PRIMARY KEY,
		subject    TEXT NOT NULL,
		hash       TEXT NOT NULL UNIQUE,
		grants     TEXT NOT NULL, -- JSON [{"pattern","level"}]
		created_at INTEGER NOT NULL, -- Unix ns
		revoked_at INTEGER           -- Unix ns, NULL while valid
	);`,
	`CREATE TABLE purges (
		id              INTEGER PRIMARY KEY,
		time            INTEGER NOT NULL, -- Unix ns
		actor           TEXT NOT NULL,
		repo            TEXT NOT NULL,
		key             TEXT NOT NULL COLLATE BINARY,
		versions        TEXT NOT NULL,    -- JSON array of the versions purged, ascending
		deleted_version INTEGER,          -- the deletion's repo version, when the live entry was deleted
		reason          TEXT NOT NULL
	);
	CREATE INDEX purges_repo ON purges (repo, id);`,
	`ALTER TABLE repos ADD COLUMN compacted_through INTEGER NOT NULL DEFAULT 0; -- the last write that compacted deletion markers`,
	`CREATE TABLE web_sessions (
		id_hash TEXT PRIMARY KEY, -- SHA-256 of the browser's session id, never the id
		data    BLOB NOT NULL,
		created INTEGER NOT NULL, -- Unix ns
		expires INTEGER NOT NULL  -- Unix ns
	);
	CREATE INDEX web_sessions_expires ON web_sessions (expires);`,
	`CREATE TABLE proposals ( -- writes held for review, and the record of each decision
		id        INTEGER PRIMARY KEY,
		repo      TEXT NOT NULL,
		subject   TEXT NOT NULL,
		time      INTEGER NOT NULL,           -- Unix ns
		base      TEXT NOT NULL,              -- JSON {key: entry checksum or ""}
		content   TEXT,                       -- JSON {"entries","soft_delete_keys"}, NULL once purged
		state     TEXT NOT NULL,              -- pending, approved or rejected
		reviewer  TEXT NOT NULL DEFAULT '',
		reason    TEXT NOT NULL DEFAULT '',
		decided   INTEGER NOT NULL DEFAULT 0, -- Unix ns
		version   INTEGER NOT NULL DEFAULT 0, -- the repo version an approval landed at
		edited    INTEGER NOT NULL DEFAULT 0,
		purged_by TEXT NOT NULL DEFAULT '',
		purged    INTEGER NOT NULL DEFAULT 0  -- Unix ns
	);
	CREATE INDEX proposals_repo ON proposals (repo, state, id);`,
	`ALTER TABLE revisions ADD COLUMN client TEXT NOT NULL DEFAULT ''; -- the credential and client that wrote it, as described at the write`,
	personalSchema,
	rowidTables,
	historyIndex,
	identityBindings,
}

// identityBindings binds each subject an identity service names by a name
// its owner can change (github:<login>) to the account that first signed
// in as it, by the id the service never gives another account (GitHub's
// user id): a login renamed and taken by someone else keeps none of the
// first account's access until an admin releases the binding.
const identityBindings = `CREATE TABLE identity_bindings (
		subject    TEXT NOT NULL PRIMARY KEY,
		account_id TEXT NOT NULL,
		bound_at   INTEGER NOT NULL -- Unix ns
	);`

// historyIndex orders each repo's revisions newest first, as a page of the
// repo's history reads them; without it each page read every revision of
// the repo and sorted them (3.2 ms a page in a repo of 20,000 revisions,
// growing with the repo's history).
const historyIndex = `CREATE INDEX revisions_version ON revisions (repo_id, version DESC, key);`

// rowidTables moves entries and revisions from WITHOUT ROWID tables to rowid
// tables, with each value the last column. A WITHOUT ROWID table keeps its
// rows in the primary key's b-tree, interior pages included, so a 4 KB value
// spilled onto overflow pages and every key comparison of a write's search
// read the whole row, overflow pages and all. In a rowid table the key's
// search runs in a small index and the row is appended by rowid; the value
// last lets a read of the columns before it stop short of its pages.
const rowidTables = `ALTER TABLE entries RENAME TO entries_old;
	CREATE TABLE entries (
		repo_id    INTEGER NOT NULL REFERENCES repos(id),
		key        TEXT NOT NULL COLLATE BINARY,
		checksum   TEXT,    -- NULL for a tombstone
		deleted_at INTEGER, -- Unix ms, set for a tombstone
		value      BLOB,    -- NULL for a tombstone
		PRIMARY KEY (repo_id, key)
	);
	INSERT INTO entries (repo_id, key, checksum, deleted_at, value)
		SELECT repo_id, key, checksum, deleted_at, value FROM entries_old ORDER BY repo_id, key;
	DROP TABLE entries_old;
	ALTER TABLE revisions RENAME TO revisions_old;
	CREATE TABLE revisions (
		repo_id  INTEGER NOT NULL REFERENCES repos(id),
		key      TEXT NOT NULL COLLATE BINARY,
		version  INTEGER NOT NULL,
		checksum TEXT,    -- NULL for a deletion
		subject  TEXT NOT NULL,
		time     INTEGER NOT NULL, -- Unix ns
		client   TEXT NOT NULL DEFAULT '', -- the credential and client that wrote it, as described at the write
		content  BLOB,    -- NULL for a deletion or once pruned
		PRIMARY KEY (repo_id, key, version)
	);
	INSERT INTO revisions (repo_id, key, version, checksum, subject, time, client, content)
		SELECT repo_id, key, version, checksum, subject, time, client, content FROM revisions_old ORDER BY repo_id, key, version;
	DROP TABLE revisions_old;
	CREATE INDEX revisions_time ON revisions (time);`

// SchemaVersion is the schema version this build writes.
var SchemaVersion = len(migrations)

// migrate brings the schema up to SchemaVersion in one write transaction,
// and logs a migration of an existing database before and after it: some
// steps rewrite whole tables and take a while. With keep, an existing
// database's older schema is refused instead.
func migrate(ctx context.Context, db *sql.DB, keep bool, log *slog.Logger) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer tx.Rollback()
	var version, appID int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if err := tx.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return fmt.Errorf("read application id: %w", err)
	}
	switch {
	case appID != 0 && appID != applicationID:
		return fmt.Errorf("not a teammemd database (application id %#x)", appID)
	case appID == 0 && version != 0:
		return fmt.Errorf("not a teammemd database (schema version %d without the teammemd mark)", version)
	case version > SchemaVersion:
		return fmt.Errorf("database schema version %d is newer than this teammemd supports (%d): upgrade teammemd", version, SchemaVersion)
	case version == SchemaVersion:
		return nil
	}
	if version == 0 {
		if err := refuseForeignTables(ctx, tx); err != nil {
			return err
		}
	} else if keep {
		return fmt.Errorf("database schema version %d, older than this teammemd's %d: %w", version, SchemaVersion, store.ErrOlderSchema)
	} else {
		log.Info("migrating database schema", "from", version, "to", SchemaVersion)
	}
	start := time.Now()
	for v := version; v < SchemaVersion; v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return fmt.Errorf("set schema version: %w", err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return fmt.Errorf("set application id: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit migration: %w", err)
	}
	if version != 0 {
		log.Info("database schema migrated", "from", version, "to", SchemaVersion, "took", time.Since(start).Round(time.Millisecond).String())
	}
	return nil
}

// refuseForeignTables refuses an unmarked SQLite file that already holds
// tables: it belongs to something else.
func refuseForeignTables(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	if n > 0 {
		return fmt.Errorf("not a teammemd database (holds %d unknown schema objects)", n)
	}
	return nil
}
