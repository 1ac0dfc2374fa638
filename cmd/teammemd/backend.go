package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/teammemd/teammemd/internal/shell"
	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres"
	"github.com/teammemd/teammemd/server/store/sqlite"
)

// storeEnv names the PostgreSQL database, like --store and [server] store.
const storeEnv = "TEAMMEMD_STORE"

// location is where the server keeps its data: a PostgreSQL database
// shared by replicas, or else the SQLite file in a data directory.
type location struct {
	url     string // postgres:// URL; empty for SQLite
	dataDir string
}

// errStoreNotURL is the error of a store that is not a PostgreSQL URL. It
// never echoes the value, which may hold a password.
var errStoreNotURL = errors.New("--store ($TEAMMEMD_STORE, [server] store) must be a postgres:// or postgresql:// URL; leave it unset for the SQLite database in --data")

// resolveLocation picks the store by the precedence of every setting,
// flags > environment > file: at each level a PostgreSQL URL wins over a
// data directory, and with nothing set it is the default data directory.
func resolveLocation(flagStore, flagData string, file server.Config) (location, error) {
	levels := [][2]string{{flagStore, flagData}, {os.Getenv(storeEnv), os.Getenv("TEAMMEMD_DATA")}, {file.Store, file.DataDir}}
	for _, l := range levels {
		switch {
		case l[0] != "" && !postgres.IsURL(l[0]):
			return location{}, errStoreNotURL
		case l[0] != "":
			return location{url: l[0]}, nil
		case l[1] != "":
			return location{dataDir: l[1]}, nil
		}
	}
	return location{dataDir: dataDir()}, nil
}

// String names the location for people: the database file, or the URL
// with its password redacted.
func (l location) String() string {
	if l.url != "" {
		return postgres.Redact(l.url)
	}
	return l.dbPath()
}

// dbPath is the SQLite database file of the location.
func (l location) dbPath() string { return filepath.Join(l.dataDir, sqlite.FileName) }

// flagArgs are the command-line flags that name the location, with a
// PostgreSQL password redacted.
func (l location) flagArgs() []string {
	if l.url != "" {
		return []string{"--store", postgres.Redact(l.url)}
	}
	return []string{"--data", l.dataDir}
}

// backend is an open store of either kind.
type backend interface {
	store.Store
	store.Tokens
	store.Proposals
	store.Personal
	store.IdentityBindings
	StoreID(ctx context.Context) (string, error)
	storeRenamer
}

// openBackend opens the store at l, creating and migrating its schema.
// For PostgreSQL it also returns the waker that hears of other replicas'
// writes; for SQLite the waker is nil.
func openBackend(ctx context.Context, l location, log *slog.Logger) (backend, *postgres.Waker, error) {
	if l.url == "" {
		st, err := sqlite.Open(ctx, l.dbPath(), sqlite.Options{Logger: log})
		if err != nil {
			return nil, nil, err
		}
		return st, nil, nil
	}
	st, err := postgres.Open(ctx, l.url, postgres.Options{Logger: log})
	if err != nil {
		return nil, nil, fmt.Errorf("store: %w", err)
	}
	return st, st.NewWaker(postgres.WakerOptions{Logger: log}), nil
}

// openAdminBackend opens the store at l for a command other than the
// server: it creates a new database's schema but leaves an older one as
// it is, so that a command of a newer teammemd never migrates a database
// under the server of an older one, and says how to migrate it.
func openAdminBackend(ctx context.Context, l location) (backend, error) {
	var st backend
	var err error
	if l.url == "" {
		st, err = sqlite.Open(ctx, l.dbPath(), sqlite.Options{KeepSchema: true})
	} else {
		st, err = postgres.Open(ctx, l.url, postgres.Options{KeepSchema: true})
		err = wrapIf(err, "store: %w")
	}
	if err != nil {
		return nil, olderSchemaHint(err, l)
	}
	return st, nil
}

// olderSchemaHint adds to err, when it is a store's refusal to migrate the
// older schema of the database at l, how to migrate it.
func olderSchemaHint(err error, l location) error {
	if !errors.Is(err, store.ErrOlderSchema) {
		return err
	}
	migrate := shell.Join(append([]string{"teammemd", "serve", "--migrate-only"}, l.flagArgs()...)...)
	return fmt.Errorf("%w: start this teammemd's server on it, or run '%s', after a backup (docs/04-server.md)", err, migrate)
}

// wrapIf wraps a non-nil err with format, which holds one %w.
func wrapIf(err error, format string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format, err)
}
