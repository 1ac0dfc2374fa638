-- The personal lanes' records: each subject's wrapped key, and each lane's
-- subject, key and usage, which writes keep in their transaction so a
-- quota check sees every write before it. A lane's entries and history are
-- those of its repo.
CREATE TABLE personal_keys (
	subject    text PRIMARY KEY,
	key_id     text NOT NULL,
	envelope   text NOT NULL,       -- the key as its clients wrapped it
	updated_at bigint NOT NULL      -- Unix ns
);

CREATE TABLE personal_lanes (
	repo_id bigint PRIMARY KEY REFERENCES repos (id),
	subject text NOT NULL,
	key_id  text NOT NULL,          -- the key the lane was created with
	entries bigint NOT NULL,        -- live entries
	bytes   bigint NOT NULL         -- bytes of their values
);

CREATE INDEX personal_lanes_subject ON personal_lanes (subject);
