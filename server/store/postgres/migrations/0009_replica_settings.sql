-- Each replica's settings that must agree across replicas (its
-- [[server.repo]] entries, as JSON), and when it last recorded them, so
-- each replica can act on its live peers' settings too.
CREATE TABLE replica_settings (
	replica  text COLLATE "C" PRIMARY KEY,
	settings jsonb NOT NULL,
	seen_at  bigint NOT NULL -- Unix ns
);
