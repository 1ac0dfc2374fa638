package proclab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"time"

	"github.com/teammemd/teammemd/internal/pause"
)

// listenTimeout bounds how long a started server may take to listen.
const listenTimeout = 15 * time.Second

// Server is a "teammemd serve" process of a lab, on a loopback port and a
// data directory that stay the same across restarts.
type Server struct {
	// Name names the log (<name>.log) and the data directory.
	Name string
	// Addr is the listen address, 127.0.0.1:<port>; URL is http://Addr.
	Addr, URL string
	// Data is the server's data directory; it holds the SQLite file.
	Data string
	// Store, when set, is the PostgreSQL database the server keeps its
	// data in, a postgres:// URL, instead of the SQLite file in Data.
	Store string

	lab  *Lab
	mu   sync.Mutex
	proc *Process
}

// StartServer starts "teammemd serve" on a free loopback port with the
// data directory <lab>/<name>, and returns once it accepts connections.
func (l *Lab) StartServer(ctx context.Context, name string) (*Server, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	s := &Server{Name: name, Addr: addr, URL: "http://" + addr, Data: filepath.Join(l.Dir, name), lab: l}
	return s, s.Restart(ctx)
}

// StartPostgresServer starts "teammemd serve" on a free loopback port with
// the PostgreSQL database at storeURL, and returns once it accepts
// connections.
func (l *Lab) StartPostgresServer(ctx context.Context, name, storeURL string) (*Server, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	s := &Server{Name: name, Addr: addr, URL: "http://" + addr, Data: filepath.Join(l.Dir, name), Store: storeURL, lab: l}
	return s, s.Restart(ctx)
}

// storeArgs are the flags that name the server's store.
func (s *Server) storeArgs() []string {
	if s.Store != "" {
		return []string{"--store", s.Store}
	}
	return []string{"--data", s.Data}
}

// Proc is the server's current process.
func (s *Server) Proc() *Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// Restart starts the server again on the same address and data directory,
// after a Kill or Stop of its process, and returns once it accepts
// connections.
func (s *Server) Restart(ctx context.Context) error {
	if p := s.Proc(); p != nil && !p.Exited() {
		return fmt.Errorf("server %s is still running (pid %d)", s.Name, p.Pid())
	}
	p, err := s.lab.Start(s.Name, nil, append([]string{"serve", "--listen", s.Addr}, s.storeArgs()...)...)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	if err := waitListening(ctx, s.Addr, p); err != nil {
		return fmt.Errorf("server %s did not listen on %s: %w (log: %s)", s.Name, s.Addr, err, p.LogTail())
	}
	return nil
}

// Kill kills the server's process with SIGKILL and waits until it is gone.
func (s *Server) Kill() error { return s.Proc().Kill() }

// CreateToken creates a token with "teammemd token create" on the
// server's store and returns its secret.
func (s *Server) CreateToken(ctx context.Context, subject, repos string) (string, error) {
	args := append([]string{"token", "create"}, s.storeArgs()...)
	return s.lab.Output(ctx, append(args, "--subject", subject, "--repos", repos)...)
}

// freeLoopbackAddr finds a port on 127.0.0.1 that was free a moment ago.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free loopback port: %w", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", fmt.Errorf("free loopback port %s: %w", addr, err)
	}
	return addr, nil
}

// waitListening polls addr until it accepts a connection, p exits, or the
// listen timeout passes.
func waitListening(ctx context.Context, addr string, p *Process) error {
	deadline := time.Now().Add(listenTimeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return c.Close()
		}
		if p.Exited() {
			return errors.New("the process exited")
		}
		if time.Now().After(deadline) {
			return err
		}
		if err := Pause(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// Pause waits d or until ctx is done, whose error it then returns.
func Pause(ctx context.Context, d time.Duration) error {
	if !pause.For(ctx, d) {
		return ctx.Err()
	}
	return nil
}
