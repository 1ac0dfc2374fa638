-- Writes to a repo under review, held until a reviewer decides them, and
-- the record of each decision.
CREATE TABLE proposals (
	id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	repo      text COLLATE "C" NOT NULL,
	subject   text NOT NULL,
	time      bigint NOT NULL,             -- Unix ns
	base      text NOT NULL,               -- JSON {key: entry checksum or ""}
	content   text,                        -- JSON {"entries","soft_delete_keys"}, NULL once purged
	state     text NOT NULL,               -- pending, approved or rejected
	reviewer  text NOT NULL DEFAULT '',
	reason    text NOT NULL DEFAULT '',
	decided   bigint NOT NULL DEFAULT 0,   -- Unix ns
	version   bigint NOT NULL DEFAULT 0,   -- the repo version an approval landed at
	edited    boolean NOT NULL DEFAULT false,
	purged_by text NOT NULL DEFAULT '',
	purged    bigint NOT NULL DEFAULT 0    -- Unix ns
);

CREATE INDEX proposals_repo ON proposals (repo, state, id);
