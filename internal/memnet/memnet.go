// Package memnet is an in-memory network for tests: listeners on
// loopback-looking addresses whose connections are net.Pipe pairs, and an
// http.Transport that dials them. Nothing waits in the operating system, so
// a client and a server talking over memnet inside a testing/synctest
// bubble block durably and the bubble's fake clock can advance.
package memnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
)

// ErrRefused is returned by Dial for an address nobody listens on.
var ErrRefused = errors.New("memnet: connection refused")

// Network is a set of listeners by address. The zero value is not usable;
// call New.
type Network struct {
	mu        sync.Mutex
	listeners map[string]*Listener
	nextPort  int
}

// New returns an empty network.
func New() *Network {
	return &Network{listeners: map[string]*Listener{}, nextPort: 10000}
}

// Listen listens on addr, a host:port; port 0 picks a free one. An address
// is free again once its listener is closed.
func (n *Network) Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("memnet: listen %s: %w", addr, err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if port == "0" {
		for {
			n.nextPort++
			port = strconv.Itoa(n.nextPort)
			if n.listeners[net.JoinHostPort(host, port)] == nil {
				break
			}
		}
	}
	a := net.JoinHostPort(host, port)
	if n.listeners[a] != nil {
		return nil, fmt.Errorf("memnet: listen %s: address in use", a)
	}
	ln := &Listener{net: n, addr: Addr(a), conns: make(chan net.Conn), closed: make(chan struct{})}
	n.listeners[a] = ln
	return ln, nil
}

// DialContext connects to the listener on addr; network is ignored. It
// waits until the listener accepts, the listener closes, or ctx is done.
func (n *Network) DialContext(ctx context.Context, _, addr string) (net.Conn, error) {
	n.mu.Lock()
	ln := n.listeners[addr]
	n.mu.Unlock()
	if ln == nil {
		return nil, fmt.Errorf("memnet: dial %s: %w", addr, ErrRefused)
	}
	from := n.clientAddr()
	client, server := net.Pipe()
	select {
	case ln.conns <- conn{Conn: server, local: ln.addr, remote: from}:
		return conn{Conn: client, local: from, remote: ln.addr}, nil
	case <-ln.closed:
		client.Close()
		server.Close()
		return nil, fmt.Errorf("memnet: dial %s: %w", addr, ErrRefused)
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, fmt.Errorf("memnet: dial %s: %w", addr, ctx.Err())
	}
}

// Transport returns a new HTTP transport that dials n: no proxy, no
// HTTP/2, keep-alives as usual. Call CloseIdleConnections when done with it
// so that no connection goroutine outlives the test.
func (n *Network) Transport() *http.Transport {
	return &http.Transport{
		DialContext:       n.DialContext,
		ForceAttemptHTTP2: false,
	}
}

// clientAddr picks the address of a dialing side: 127.0.0.1 and a port
// of its own, as a server that logs or limits by address expects.
func (n *Network) clientAddr() Addr {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.nextPort++
	return Addr(net.JoinHostPort("127.0.0.1", strconv.Itoa(n.nextPort)))
}

// remove forgets ln, if it still holds its address.
func (n *Network) remove(ln *Listener) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.listeners[string(ln.addr)] == ln {
		delete(n.listeners, string(ln.addr))
	}
}

// Listener accepts the connections dialed to its address.
type Listener struct {
	net       *Network
	addr      Addr
	conns     chan net.Conn
	closed    chan struct{}
	closeOnce sync.Once
}

// Accept waits for the next connection.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, fmt.Errorf("memnet: accept on %s: %w", l.addr, net.ErrClosed)
	}
}

// Close stops accepting and frees the address. Connections already
// accepted stay open.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() {
		close(l.closed)
		l.net.remove(l)
	})
	return nil
}

// Addr returns the listening address.
func (l *Listener) Addr() net.Addr { return l.addr }

// Addr is a memnet address, host:port.
type Addr string

// Network returns "memnet".
func (Addr) Network() string { return "memnet" }

func (a Addr) String() string { return string(a) }

// conn is a pipe end with the addresses of its two sides.
type conn struct {
	net.Conn
	local, remote net.Addr
}

func (c conn) LocalAddr() net.Addr  { return c.local }
func (c conn) RemoteAddr() net.Addr { return c.remote }
