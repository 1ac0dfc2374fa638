package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teammemd/teammemd/internal/proclab"
)

// serverConfig is teammemd's default config but for the per-address rate
// limit: the clients, all on 127.0.0.1, stand for machines of their own.
const serverConfig = `[server.rate_limit]
requests_per_second = -1
`

// Server kinds, in the order of the report; oldSuffix marks those of the
// -old binary.
const (
	kindFloor         = "floor"
	kindFloorSQLite   = "floor+sqlite"
	kindFloorPostgres = "floor+postgres"
	kindSQLite        = "sqlite"
	kindPostgres      = "postgres"
	oldSuffix         = " (old)"
)

// bench is one run: a lab with the teammemd binary, one with the -old
// binary when it is set, and the options.
type bench struct {
	o        options
	dir      string
	lab, old *proclab.Lab
	stderr   io.Writer
}

// target is a server under load: its base URL, the token it wants and
// its process id.
type target struct {
	url, token string
	pid        int
	stop       func() error
}

// row is what one server measured in one round.
type row struct {
	round int
	kind  string
	load  loadResult
}

// newBench creates the temporary directory and builds teammemd, unless
// o.bin names one.
func newBench(ctx context.Context, o options, stderr io.Writer) (*bench, error) {
	dir, err := os.MkdirTemp("", "teammemd-serverbench-")
	if err != nil {
		return nil, fmt.Errorf("create temporary directory: %w", err)
	}
	b := &bench{o: o, dir: dir, stderr: stderr}
	bin := o.bin
	if bin == "" {
		bin = filepath.Join(dir, "teammemd")
		if err := proclab.Build(ctx, bin, o.tags); err != nil {
			return nil, errors.Join(err, b.close())
		}
	}
	if b.lab, err = newLab(filepath.Join(dir, "new"), bin); err != nil {
		return nil, errors.Join(err, b.close())
	}
	if o.old != "" {
		if b.old, err = newLab(filepath.Join(dir, "old"), o.old); err != nil {
			return nil, errors.Join(err, b.close())
		}
	}
	return b, nil
}

// newLab makes a lab in dir, which it creates, with the servers' config.
func newLab(dir, bin string) (*proclab.Lab, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create lab directory: %w", err)
	}
	lab, err := proclab.New(dir, bin)
	if err != nil {
		return nil, err
	}
	return lab, lab.SetConfig(serverConfig)
}

// close stops every process and removes the directory unless it is kept.
func (b *bench) close() error {
	var err error
	for _, lab := range []*proclab.Lab{b.lab, b.old} {
		if lab != nil {
			err = errors.Join(err, lab.Close())
		}
	}
	if b.o.keep {
		fmt.Fprintln(b.stderr, "serverbench: kept", b.dir)
		return err
	}
	if rerr := os.RemoveAll(b.dir); rerr != nil {
		err = errors.Join(err, fmt.Errorf("remove temporary directory: %w", rerr))
	}
	return err
}

// kinds are the servers each round measures.
func (b *bench) kinds() []string {
	teammemd := []string{kindSQLite}
	if b.o.postgres != "" {
		teammemd = append(teammemd, kindPostgres)
	}
	kinds := []string{kindFloor}
	if b.o.storeFloors {
		kinds = append(kinds, kindFloorSQLite)
		if b.o.postgres != "" {
			kinds = append(kinds, kindFloorPostgres)
		}
	}
	kinds = append(kinds, teammemd...)
	if b.old != nil {
		for _, k := range teammemd {
			kinds = append(kinds, k+oldSuffix)
		}
	}
	return kinds
}

// rounds measures every server once a round, one after the other, each
// round starting one server further along so none always goes first.
func (b *bench) rounds(ctx context.Context) ([]row, error) {
	kinds := b.kinds()
	var rows []row
	for round := 1; round <= b.o.rounds; round++ {
		for i := range kinds {
			kind := kinds[(i+round-1)%len(kinds)]
			res, err := b.measure(ctx, round, kind)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", round, kind, err)
			}
			rows = append(rows, row{round: round, kind: kind, load: res})
		}
	}
	return rows, nil
}

// measure starts the server of kind, loads it and stops it.
func (b *bench) measure(ctx context.Context, round int, kind string) (loadResult, error) {
	t, err := b.start(ctx, round, kind)
	if err != nil {
		return loadResult{}, err
	}
	res, err := runLoad(ctx, t, b.o, fmt.Sprintf("bench/r%d", round))
	return res, errors.Join(err, t.stop())
}

// start starts the server of kind for round.
func (b *bench) start(ctx context.Context, round int, kind string) (target, error) {
	lab, name := b.lab, "new"
	if base, old := strings.CutSuffix(kind, oldSuffix); old {
		lab, name, kind = b.old, "old", base
	}
	switch kind {
	case kindFloor:
		return floorTarget(ctx, "1", nil)
	case kindFloorSQLite:
		return floorTarget(ctx, storeFloorSQLite+filepath.Join(b.dir, fmt.Sprintf("floor-r%d.db", round)), nil)
	case kindFloorPostgres:
		return b.startPostgresFloor(ctx, fmt.Sprintf("floor_r%d", round))
	case kindSQLite:
		srv, err := lab.StartServer(ctx, fmt.Sprintf("sqlite-r%d", round))
		if err != nil {
			return target{}, err
		}
		return b.withToken(ctx, srv, srv.Proc().Stop)
	default:
		return b.startPostgres(ctx, lab, fmt.Sprintf("%s_r%d", name, round))
	}
}

// floorTarget starts the floor server of spec; stop runs after it stops.
func floorTarget(ctx context.Context, spec string, stop func() error) (target, error) {
	if stop == nil {
		stop = func() error { return nil }
	}
	f, err := startFloor(ctx, spec)
	if err != nil {
		return target{}, errors.Join(err, stop())
	}
	return target{url: f.url, pid: f.cmd.Process.Pid, stop: func() error { return errors.Join(f.stop(), stop()) }}, nil
}

// startPostgresFloor starts the PostgreSQL store floor on a new schema.
func (b *bench) startPostgresFloor(ctx context.Context, tag string) (target, error) {
	storeURL, drop, err := b.newSchema(ctx, tag)
	if err != nil {
		return target{}, err
	}
	return floorTarget(ctx, storeFloorPostgres+storeURL, drop)
}

// newSchema creates a schema of the -postgres database named after the
// run and tag, and returns the database's URL on it and what drops it.
func (b *bench) newSchema(ctx context.Context, tag string) (string, func() error, error) {
	schema := fmt.Sprintf("serverbench_%d_%s", os.Getpid(), tag)
	storeURL, err := withSearchPath(b.o.postgres, schema)
	if err != nil {
		return "", nil, err
	}
	if err := pgExec(ctx, b.o.postgres, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, err
	}
	drop := func() error {
		return pgExec(context.WithoutCancel(ctx), b.o.postgres, "DROP SCHEMA "+schema+" CASCADE")
	}
	return storeURL, drop, nil
}

// startPostgres starts a server of lab on a new schema of the -postgres
// database, dropped when the server stops.
func (b *bench) startPostgres(ctx context.Context, lab *proclab.Lab, tag string) (target, error) {
	storeURL, drop, err := b.newSchema(ctx, tag)
	if err != nil {
		return target{}, err
	}
	srv, err := lab.StartPostgresServer(ctx, "postgres-"+tag, storeURL)
	if err != nil {
		return target{}, errors.Join(err, drop())
	}
	return b.withToken(ctx, srv, func() error { return errors.Join(srv.Proc().Stop(), drop()) })
}

// withToken creates a write token on every repo of srv.
func (b *bench) withToken(ctx context.Context, srv *proclab.Server, stop func() error) (target, error) {
	token, err := srv.CreateToken(ctx, "serverbench", "**")
	if err != nil {
		return target{}, errors.Join(fmt.Errorf("create token: %w", err), stop())
	}
	return target{url: srv.URL, token: token, pid: srv.Proc().Pid(), stop: stop}, nil
}

// withSearchPath returns dbURL with its connections on schema.
func withSearchPath(dbURL, schema string) (string, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", fmt.Errorf("parse -postgres: %w", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// pgExec runs one statement on the database at dbURL, which may hold the
// pool's parameters (pool_max_conns) the server reads.
func pgExec(ctx context.Context, dbURL, stmt string) error {
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return fmt.Errorf("parse -postgres: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return fmt.Errorf("connect to -postgres: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", stmt, err)
	}
	return nil
}
