-- The credential and client that wrote each revision, as the server
-- described them at the write (at most 200 bytes of printable text); empty
-- for a revision recorded before.
ALTER TABLE revisions ADD COLUMN client text NOT NULL DEFAULT '';
