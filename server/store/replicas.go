package store

import (
	"context"
	"time"
)

// ReplicaSettings is a store several server replicas share. Each replica
// records the settings that must agree across replicas (a server's
// [[server.repo]] entries) and reads the others', so that none acts on
// settings its peers do not know of.
type ReplicaSettings interface {
	// ExchangeSettings records settings as replica's, seen now, and
	// returns every other replica's record seen within ttl. The store's
	// clock alone says when a record was seen and how old it is, so
	// replicas whose clocks disagree still see each other.
	ExchangeSettings(ctx context.Context, replica string, settings []byte, ttl time.Duration) ([]ReplicaRecord, error)
	// WithdrawSettings removes replica's record, as it stops.
	WithdrawSettings(ctx context.Context, replica string) error
}

// ReplicaRecord is one replica's settings, as it last recorded them.
type ReplicaRecord struct {
	Replica  string
	Settings []byte
	Seen     time.Time // by the store's clock
}
