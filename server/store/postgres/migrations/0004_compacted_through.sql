-- The version of the last write that compacted deletion markers
-- (tombstones): a client that synced at an older version may have missed
-- a deletion whose marker is gone.
ALTER TABLE repos ADD COLUMN compacted_through bigint NOT NULL DEFAULT 0;
