-- Each subject an identity service names by a name its owner can change
-- (github:<login>), bound to the account that first signed in as it, by
-- the id the service never gives another account (GitHub's user id), so
-- that a login renamed and taken by someone else keeps none of the first
-- account's access until an admin releases the binding.
CREATE TABLE identity_bindings (
	subject    text COLLATE "C" PRIMARY KEY,
	account_id text NOT NULL,
	bound_at   bigint NOT NULL -- Unix ns
);
