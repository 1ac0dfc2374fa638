package servertest

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/teammemd/teammemd/server"
	"github.com/teammemd/teammemd/server/auth"
	"github.com/teammemd/teammemd/server/store"
	"github.com/teammemd/teammemd/server/store/postgres"
)

// PGServer is the real server on a PostgreSQL store, with the store's
// waker, served on a new 127.0.0.1 port until the test ends.
type PGServer struct {
	// URL is the base URL, http://127.0.0.1:<port>.
	URL string
	// Token is a write token on every repo ("**").
	Token string
	// Store is the open store.
	Store *postgres.Store
	// DBURL is the database's postgres:// URL.
	DBURL string
}

// StartPostgres serves the real handler on the database at dbURL, say a
// pgtest.Schema of the test's own, with the options that Start takes. It
// returns once the server serves, having recorded its [[server.repo]]
// entries for the other replicas on the database and learned theirs, so a
// replica started after it knows its entries.
func StartPostgres(t testing.TB, dbURL string, opts ...Option) *PGServer {
	t.Helper()
	cfg := config{server: Config()}
	for _, o := range opts {
		o(&cfg)
	}
	st, err := postgres.Open(context.Background(), dbURL, postgres.Options{})
	if err != nil {
		t.Fatalf("servertest: open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	waker := st.NewWaker(postgres.WakerOptions{})
	o := cfg.opts
	if o.Settings, err = cfg.server.Settings(); err != nil {
		t.Fatalf("servertest: settings: %v", err)
	}
	if o.Auth, err = cfg.authenticator(st); err != nil {
		t.Fatalf("servertest: %v", err)
	}
	ready := make(chan struct{})
	o.Store, o.Waker, o.ShutdownTimeout = st, waker, 5*time.Second
	o.Ready = func(net.Addr) { close(ready) }
	srv, err := server.New(o)
	if err != nil {
		t.Fatalf("servertest: new server: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("servertest: listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served, listened := make(chan error, 1), make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	go func() { listened <- waker.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("servertest: Serve() = %v", err)
		}
		if err := <-listened; err != nil {
			t.Errorf("servertest: Waker.Run() = %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-served:
		served <- err // for the cleanup, which reports it
		t.Fatal("servertest: the server stopped before serving")
	}
	s := &PGServer{URL: "http://" + ln.Addr().String(), Store: st, DBURL: dbURL}
	s.Token = s.CreateToken(t, "servertest", store.Grant{Pattern: "**", Level: store.LevelWrite})
	return s
}

// CreateToken stores a new token for subject with grants and returns its
// secret.
func (s *PGServer) CreateToken(t testing.TB, subject string, grants ...store.Grant) string {
	t.Helper()
	secret, rec, err := auth.NewTokenRecord(subject, grants, time.Now())
	if err == nil {
		err = s.Store.CreateToken(context.Background(), rec)
	}
	if err != nil {
		t.Fatalf("servertest: create token: %v", err)
	}
	return secret
}

// TableBytes returns every byte the tables of the database at dbURL hold:
// each row's bytea columns as their bytes, its other columns as their text,
// in no particular order. A test searches it for content that must never
// reach the database.
func TableBytes(t testing.TB, dbURL string) []byte {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatalf("servertest: connect: %v", err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT table_name::text, string_agg(CASE WHEN data_type = 'bytea'
			THEN format('coalesce(%I, ''''::bytea)', column_name)
			ELSE format('coalesce(convert_to(%I::text, ''UTF8''), ''''::bytea)', column_name) END, ' || ''\x09''::bytea || ')
		FROM information_schema.columns WHERE table_schema = current_schema() GROUP BY table_name ORDER BY table_name`)
	if err != nil {
		t.Fatalf("servertest: list columns: %v", err)
	}
	type table struct{ name, row string }
	tables, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (table, error) {
		var tb table
		return tb, r.Scan(&tb.name, &tb.row)
	})
	if err != nil {
		t.Fatalf("servertest: list columns: %v", err)
	}
	var out []byte
	for _, tb := range tables {
		var dump []byte
		q := `SELECT coalesce(string_agg(` + tb.row + `, '\x0a'::bytea), ''::bytea) FROM ` + pgx.Identifier{tb.name}.Sanitize()
		if err := conn.QueryRow(ctx, q).Scan(&dump); err != nil {
			t.Fatalf("servertest: read %s: %v", tb.name, err)
		}
		out = append(append(out, tb.name+"\n"...), dump...)
	}
	return out
}
