package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is the PostgreSQL cluster on this machine that serves a test
// database, as the process serving a connection to it shows it: its data
// directory, which the test reads, and its socket, over which psql runs as
// the directory's owner, a superuser by peer authentication (as .ci/run
// sets the cluster up). Only root can see another user's cluster so.
type Cluster struct {
	// DataDir is the cluster's data directory.
	DataDir string
	// DatabaseDir is the directory of the test database's files in it.
	DatabaseDir string

	psql      string
	socketDir string
	port      string
	owner     *user.User
}

// LocalCluster finds the cluster serving dbURL. Where it cannot (a server
// on another machine, a test run without root), the test skips, or fails
// with $TEAMMEMD_REQUIRE_POSTGRES=1.
func LocalCluster(t testing.TB, dbURL string) *Cluster {
	t.Helper()
	c, err := localCluster(dbURL)
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("pgtest: %s=1 but the cluster's files cannot be reached: %v", RequireEnv, err)
		}
		t.Skipf("pgtest: the cluster's files cannot be reached: %v; run on the machine of the cluster %s names, "+
			"as .ci/run does, to run this test", err, URLEnv)
	}
	return c
}

func localCluster(dbURL string) (*Cluster, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	var pid int
	var dbOID uint32
	err = conn.QueryRow(ctx, `SELECT pg_backend_pid(), oid FROM pg_database WHERE datname = current_database()`).Scan(&pid, &dbOID)
	if err != nil {
		return nil, fmt.Errorf("read the backend: %w", err)
	}
	c, err := clusterOf(pid)
	if err != nil {
		return nil, err
	}
	c.DatabaseDir = filepath.Join(c.DataDir, "base", strconv.FormatUint(uint64(dbOID), 10))
	return c, nil
}

// clusterOf reads the cluster of the server process pid: its working
// directory is the data directory, whose postmaster.pid names the port and
// the socket directory.
func clusterOf(pid int) (*Cluster, error) {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	dataDir, err := os.Readlink(filepath.Join(proc, "cwd"))
	if err != nil {
		return nil, fmt.Errorf("the server's data directory: %w", err)
	}
	exe, err := os.Readlink(filepath.Join(proc, "exe"))
	if err != nil {
		return nil, fmt.Errorf("the server's binary: %w", err)
	}
	pidFile, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return nil, fmt.Errorf("read postmaster.pid: %w", err)
	}
	lines := strings.Split(string(pidFile), "\n")
	if len(lines) < 5 {
		return nil, fmt.Errorf("postmaster.pid of %s has %d lines, want the port and the socket directory", dataDir, len(lines))
	}
	owner, err := ownerOf(dataDir)
	if err != nil {
		return nil, err
	}
	return &Cluster{DataDir: dataDir, psql: filepath.Join(filepath.Dir(exe), "psql"),
		port: strings.TrimSpace(lines[3]), socketDir: strings.TrimSpace(lines[4]), owner: owner}, nil
}

// ownerOf returns the user who owns dir.
func ownerOf(dir string) (*user.User, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("the data directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, fmt.Errorf("the owner of %s is unknown here", dir)
	}
	u, err := user.LookupId(strconv.FormatUint(uint64(st.Uid), 10))
	if err != nil {
		return nil, fmt.Errorf("the owner of %s: %w", dir, err)
	}
	return u, nil
}

// Superuser runs sql in the database dbURL names as the cluster's superuser.
func (c *Cluster) Superuser(t testing.TB, dbURL, sql string) {
	t.Helper()
	u, err := urlDatabase(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.ParseUint(c.owner.Uid, 10, 32)
	gid, _ := strconv.ParseUint(c.owner.Gid, 10, 32)
	cmd := osexec.Command(c.psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", c.socketDir, "-p", c.port,
		"-U", c.owner.Username, "-d", u, "-c", sql)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgtest: %s as the superuser %s: %v\n%s", sql, c.owner.Username, err, out)
	}
}

// urlDatabase returns the database name of a postgres:// URL.
func urlDatabase(dbURL string) (string, error) {
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		return "", fmt.Errorf("pgtest: parse the database URL: %w", err)
	}
	return cfg.Database, nil
}

// FilesHolding returns the files under dir whose bytes hold marker.
func FilesHolding(t testing.TB, dir string, marker []byte) []string {
	t.Helper()
	var holding []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, marker) {
			holding = append(holding, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("pgtest: read %s: %v", dir, err)
	}
	return holding
}
