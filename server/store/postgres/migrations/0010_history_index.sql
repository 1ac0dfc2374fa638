-- Each repo's revisions newest first, as a page of the repo's history
-- reads them; without it each page read every revision of the repo and
-- sorted them.
CREATE INDEX revisions_version ON revisions (repo_id, version DESC, key);
