package postgres

import "github.com/teammemd/teammemd/server/store"

// webSessionSQL is the web_sessions table's statements for
// store.SQLWebSessions.
var webSessionSQL = store.WebSessionSQL{
	DropExpired: "DELETE FROM web_sessions WHERE expires < $1",
	Put: `INSERT INTO web_sessions (id_hash, data, created, expires) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id_hash) DO UPDATE SET data = excluded.data, created = excluded.created, expires = excluded.expires`,
	Get:    "SELECT data, created, expires FROM web_sessions WHERE id_hash = $1 AND expires > $2",
	Delete: "DELETE FROM web_sessions WHERE id_hash = $1",
}
