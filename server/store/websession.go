package store

import (
	"context"
	"errors"
	"time"
)

// ErrWebSessionNotFound is returned for a web session that is unknown,
// ended or expired.
var ErrWebSessionNotFound = errors.New("web session not found")

// WebSession is the server-side record of a browser's sign-in to the web
// view, or of one under way. The store keeps it opaque: IDHash is the
// SHA-256 of the random id the browser holds, never the id itself, and Data
// is what the web view records about the sign-in.
type WebSession struct {
	IDHash  string
	Data    []byte
	Created time.Time
	Expires time.Time
}

// WebSessions keeps the web view's sessions, so that every replica sharing
// a database knows a browser signed in through any of them.
type WebSessions interface {
	// PutWebSession records s, replacing a session of the same IDHash, and
	// drops the sessions expired before s.Created.
	PutWebSession(ctx context.Context, s WebSession) error
	// WebSession returns the session whose id hashes to idHash, or
	// ErrWebSessionNotFound when there is none or it expired before now.
	WebSession(ctx context.Context, idHash string, now time.Time) (WebSession, error)
	// DeleteWebSession ends a session; ending an unknown one succeeds.
	DeleteWebSession(ctx context.Context, idHash string) error
}
