-- The web view's sessions: the SHA-256 of each browser's random session
-- id, never the id, what the view records of the sign-in, and when it
-- ends (Unix ns).
CREATE TABLE web_sessions (
	id_hash text PRIMARY KEY,
	data    bytea NOT NULL,
	created bigint NOT NULL,
	expires bigint NOT NULL
);
CREATE INDEX web_sessions_expires ON web_sessions (expires);
