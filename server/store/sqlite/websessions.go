package sqlite

import "github.com/teammemd/teammemd/server/store"

// webSessionSQL is the web_sessions table's statements for
// store.SQLWebSessions.
var webSessionSQL = store.WebSessionSQL{
	DropExpired: "DELETE FROM web_sessions WHERE expires < ?",
	Put: `INSERT INTO web_sessions (id_hash, data, created, expires) VALUES (?, ?, ?, ?)
		ON CONFLICT (id_hash) DO UPDATE SET data = excluded.data, created = excluded.created, expires = excluded.expires`,
	Get:    "SELECT data, created, expires FROM web_sessions WHERE id_hash = ? AND expires > ?",
	Delete: "DELETE FROM web_sessions WHERE id_hash = ?",
}
