-- The first schema: repos, their entries and tombstones, the history of
-- every key, and API tokens. Times are Unix nanoseconds (tombstones: Unix
-- milliseconds), as in the SQLite store, so a copy between them is exact.
-- Keys, slugs and token ids sort in byte order (COLLATE "C"), the order of
-- the repo checksum.
CREATE TABLE repos (
	id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	slug          text COLLATE "C" NOT NULL UNIQUE,
	version       bigint NOT NULL,
	last_modified bigint NOT NULL,
	checksum      text NOT NULL
);

CREATE TABLE entries (
	repo_id    bigint NOT NULL REFERENCES repos (id),
	key        text COLLATE "C" NOT NULL,
	checksum   text,   -- NULL for a tombstone
	value      bytea,  -- NULL for a tombstone
	deleted_at bigint, -- Unix ms, set for a tombstone
	PRIMARY KEY (repo_id, key)
);

CREATE TABLE revisions (
	repo_id  bigint NOT NULL REFERENCES repos (id),
	key      text COLLATE "C" NOT NULL,
	version  bigint NOT NULL,
	checksum text,  -- NULL for a deletion
	subject  text NOT NULL,
	time     bigint NOT NULL,
	content  bytea, -- NULL for a deletion or once pruned
	PRIMARY KEY (repo_id, key, version)
);

CREATE INDEX revisions_time ON revisions (time);

CREATE TABLE tokens (
	id         text COLLATE "C" PRIMARY KEY,
	subject    text NOT NULL,
	hash       text COLLATE "C" NOT NULL UNIQUE,
	grants     jsonb NOT NULL, -- [{"pattern", "level"}]
	created_at bigint NOT NULL,
	revoked_at bigint          -- NULL while valid
);
