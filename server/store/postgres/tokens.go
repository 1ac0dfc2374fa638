package postgres

import "github.com/teammemd/teammemd/server/store"

// tokenSQL is the tokens table's statements for store.SQLTokens.
var tokenSQL = store.TokenSQL{
	Insert: "INSERT INTO tokens (" + store.TokenColumns + ") VALUES ($1, $2, $3, $4, $5, $6)",
	ByHash: "SELECT " + store.TokenColumns + " FROM tokens WHERE hash = $1 AND revoked_at IS NULL",
	ByID:   "SELECT " + store.TokenColumns + " FROM tokens WHERE id = $1",
	List:   "SELECT " + store.TokenColumns + " FROM tokens ORDER BY created_at, id",
	Revoke: "UPDATE tokens SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2",
}
