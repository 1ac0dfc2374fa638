-- The audit log of purges: who dropped the content of which revisions of
-- which key, when and why. It never holds content.
CREATE TABLE purges (
	id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	time            bigint NOT NULL,          -- Unix ns
	actor           text NOT NULL,
	repo            text COLLATE "C" NOT NULL,
	key             text COLLATE "C" NOT NULL,
	versions        bigint[] NOT NULL,        -- the versions purged, ascending
	deleted_version bigint,                   -- the deletion's repo version, when the live entry was deleted
	reason          text NOT NULL
);

CREATE INDEX purges_repo ON purges (repo, id);
