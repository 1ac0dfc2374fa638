package sqlite

import "github.com/teammemd/teammemd/server/store"

// tokenSQL is the tokens table's statements for store.SQLTokens.
var tokenSQL = store.TokenSQL{
	Insert: "INSERT INTO tokens (" + store.TokenColumns + ") VALUES (?, ?, ?, ?, ?, ?)",
	ByHash: "SELECT " + store.TokenColumns + " FROM tokens WHERE hash = ? AND revoked_at IS NULL",
	ByID:   "SELECT " + store.TokenColumns + " FROM tokens WHERE id = ?",
	List:   "SELECT " + store.TokenColumns + " FROM tokens ORDER BY created_at, id",
	Revoke: "UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?",
}
