-- The database's identity: a random id made when the schema is created,
-- sent with every response so that a client can tell a database restored
-- from a backup, or replaced, from the one it synced with. Restoring a
-- backup is followed by "teammemd admin new-store-id", which replaces it.
CREATE TABLE meta (
	key   text COLLATE "C" PRIMARY KEY,
	value text NOT NULL
);

INSERT INTO meta (key, value) VALUES ('store_id', replace(gen_random_uuid()::text, '-', ''));
